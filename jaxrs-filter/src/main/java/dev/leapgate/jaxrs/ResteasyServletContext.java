package dev.leapgate.jaxrs;

import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.core.Configuration;
import java.util.function.Supplier;
import org.jboss.resteasy.spi.ResteasyDeployment;
import org.jboss.resteasy.spi.ResteasyProviderFactory;

/**
 * The optional RESTEasy adapter for the application's end in a servlet container: RESTEasy tells a
 * provider nothing when it stops, but its servlet bootstraps (its dispatcher servlet, its {@code
 * ResteasyBootstrap} listener) put the servlet context among the deployment's context objects
 * before the deployment starts, so the provider learns it while it is configured, and has its gate
 * closed with it ({@link ServletRequests}), also a gate that no request ever reaches. And the
 * servlet request itself, where RESTEasy's proxy to it reaches it on the request's thread only
 * ({@link #requestOnThisThread}). Loaded only where RESTEasy's and the Servlet API's classes are.
 */
final class ResteasyServletContext {

    private ResteasyServletContext() {}

    /**
     * Has {@code application}'s gate closed with the servlet context of the RESTEasy deployment
     * starting it; returns whether there is one (RESTEasy runs in a servlet container, not on
     * Vert.x or Netty).
     */
    static boolean closeWith(Configuration configuration, ApplicationGate application) {
        if (!(configuration instanceof ResteasyProviderFactory factory)) {
            return false;
        }
        ResteasyDeployment deployment = factory.getContextData(ResteasyDeployment.class);
        Object context = deployment == null || deployment.getDefaultContextObjects() == null
                ? null
                : deployment.getDefaultContextObjects().get(ServletContext.class);
        if (context == null) {
            context = factory.getContextData(ServletContext.class);
        }
        if (context instanceof ServletContext servletContext) {
            ServletRequests.closeWith(servletContext, application);
            return true;
        }
        return false;
    }

    /**
     * The servlet request of the RESTEasy request on the calling thread, as RESTEasy's proxy to it
     * finds it there, but the request itself: usable on another thread (a response filter run by
     * the application's thread, where the proxy throws). {@code configuration} is the one {@link
     * #closeWith} found RESTEasy's.
     */
    static Supplier<HttpServletRequest> requestOnThisThread(Configuration configuration) {
        ResteasyProviderFactory factory = (ResteasyProviderFactory) configuration;
        return () -> factory.getContextData(HttpServletRequest.class);
    }
}

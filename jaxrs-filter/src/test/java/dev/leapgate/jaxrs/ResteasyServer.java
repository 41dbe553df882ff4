package dev.leapgate.jaxrs;

import jakarta.servlet.ServletContext;
import jakarta.ws.rs.core.Application;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.jboss.resteasy.core.ResteasyDeploymentImpl;
import org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher;
import org.jboss.resteasy.spi.ResteasyDeployment;

/** RESTEasy 6.2's servlet in Jetty 12, given the application's deployment. */
final class ResteasyServer extends JaxrsServer {

    @Override
    ServletHolder servlet(Application application, ServletContextHandler context) {
        ResteasyDeployment deployment = new ResteasyDeploymentImpl();
        deployment.setApplication(application);
        // As RESTEasy's bootstraps (its dispatcher servlet, its ResteasyBootstrap listener) do.
        deployment.getDefaultContextObjects().put(ServletContext.class, context.getServletContext());
        deployment.start();
        context.setAttribute(ResteasyDeployment.class.getName(), deployment);
        return new ServletHolder(new HttpServlet30Dispatcher());
    }
}

package dev.leapgate.jaxrs;

import jakarta.ws.rs.core.Application;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/** Jersey 3.1's servlet in Jetty 12. */
final class JerseyServer extends JaxrsServer {

    @Override
    ServletHolder servlet(Application application, ServletContextHandler context) {
        ResourceConfig config = ResourceConfig.forApplication(application);
        // Jersey's advice for Jetty: without it, a response written through sendError (an
        // unmapped exception of a resumed AsyncResponse) can leave a stray 500 on the connection.
        config.property("jersey.config.server.response.setStatusOverSendError", true);
        return new ServletHolder(new ServletContainer(config));
    }
}

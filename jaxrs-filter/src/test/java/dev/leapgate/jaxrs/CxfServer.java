package dev.leapgate.jaxrs;

import jakarta.ws.rs.core.Application;
import org.apache.cxf.jaxrs.servlet.CXFNonSpringJaxrsServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/** Apache CXF 4.1's JAX-RS servlet in Jetty 12, given the application. */
final class CxfServer extends JaxrsServer {

    @Override
    ServletHolder servlet(Application application, ServletContextHandler context) {
        return new ServletHolder(new CXFNonSpringJaxrsServlet(application));
    }
}

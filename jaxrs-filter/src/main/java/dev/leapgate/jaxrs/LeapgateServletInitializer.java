package dev.leapgate.jaxrs;

import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import java.util.Set;

/**
 * Installs the provider's request listener in a servlet container, so that the container reports
 * the end of every request to the provider, on every JAX-RS runtime (see {@code ServletRequests}).
 * A servlet container runs it by itself at start (it is named in the jar's {@code
 * META-INF/services/jakarta.servlet.ServletContainerInitializer}); for an embedded container that
 * does not scan jars, add it by hand, e.g. on Jetty {@code
 * servletContextHandler.addServletContainerInitializer(new LeapgateServletInitializer())}.
 */
public final class LeapgateServletInitializer implements ServletContainerInitializer {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        context.addListener(new ServletRequests());
    }
}

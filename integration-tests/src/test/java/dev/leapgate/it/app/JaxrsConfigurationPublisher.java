package dev.leapgate.it.app;

import jakarta.ws.rs.core.Configuration;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;
import org.glassfish.jersey.servlet.ServletContainer;

/**
 * A test hook: puts the JAX-RS application's {@link Configuration} in the servlet context under
 * {@link #ATTRIBUTE}, so that a test can reach the Leapgate provider's gate and statistics with
 * {@code LeapgateFeature.gate(configuration)}, as an application would with {@code @Context
 * Configuration}.
 */
public class JaxrsConfigurationPublisher implements ContainerLifecycleListener {

    public static final String ATTRIBUTE = "dev.leapgate.it.jaxrs.Configuration";

    @Override
    public void onStartup(Container container) {
        if (container instanceof ServletContainer servlet) {
            servlet.getServletContext().setAttribute(ATTRIBUTE, container.getConfiguration());
        }
    }

    @Override
    public void onReload(Container container) {
        onStartup(container);
    }

    @Override
    public void onShutdown(Container container) {}
}

package dev.leapgate.jaxrs.app;

import jakarta.ws.rs.core.Application;
import java.util.Map;
import java.util.Set;

/**
 * An application that does not name the provider: the runtime's own setting does, by class name
 * (the README's {@code resteasy.providers}, {@code jaxrs.providers}, {@code
 * jersey.config.server.provider.classnames}), and the provider's settings are the application's
 * properties.
 */
public class ByClassNameApplication extends Application {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(UserResource.class, LimitedResource.class);
    }

    @Override
    public Map<String, Object> getProperties() {
        return Map.of("leapgate.rule.users.match", "GET /users/{id}", "leapgate.rule.users.limit", "2/1h");
    }
}

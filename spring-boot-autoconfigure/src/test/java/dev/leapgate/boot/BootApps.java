package dev.leapgate.boot;

import dev.leapgate.ManualClock;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts {@link ContractApplication} on embedded Tomcat on a free loopback port, with properties. */
final class BootApps {

    private BootApps() {}

    /** A running application and its context. */
    record Running(ConfigurableApplicationContext context) implements AutoCloseable {
        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
        }

        <T> T bean(Class<T> type) {
            return context.getBean(type);
        }

        @Override
        public void close() {
            context.close();
        }
    }

    /**
     * Starts the application with {@code properties}, the Leapgate clock {@code clock} and the
     * application's own {@code configurations}, if any.
     */
    static Running start(Map<String, String> properties, ManualClock clock, Class<?>... configurations) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("server.port", "0");
        all.put("server.address", "127.0.0.1");
        all.put("spring.main.banner-mode", "off");
        all.putAll(properties);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ContractApplication.class)
                .sources(configurations)
                .properties(all)
                .initializers(c -> c.getBeanFactory().registerSingleton("leapgateTestClock", clock))
                .run();
        return new Running(context);
    }
}

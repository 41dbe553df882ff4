package dev.leapgate.boot;

import org.junit.jupiter.api.Tag;

/**
 * The adapter contract for the Spring Boot starter on embedded Jetty ({@code
 * spring-boot-starter-jetty}), in a test run of its own without Tomcat on the class path (the
 * surefire execution {@code jetty} in this module's POM).
 */
@Tag("jetty")
class JettyBootContractTest extends BootContractTest {

    @Override
    String server() {
        return "jetty/";
    }
}

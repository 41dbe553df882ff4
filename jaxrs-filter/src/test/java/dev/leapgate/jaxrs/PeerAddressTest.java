package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Clock;
import dev.leapgate.Sleeper;
import dev.leapgate.config.ConfigParser;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where the provider finds the peer's address when there is no servlet request: what a runtime
 * adapter read ({@link ResteasyPeer}, {@link GrizzlyPeer}), else the header configured as {@code
 * leapgate.client-ip-header} (for a runtime that no adapter covers, behind a proxy that overwrites
 * it), else nothing: the client is unknown.
 */
class PeerAddressTest {

    private static GateFilter filter(String clientIpHeader) {
        ProviderSettings settings = new ProviderSettings(
                ConfigParser.parse(Map.of(), "test"),
                Clock.system(),
                Sleeper.system(),
                clientIpHeader,
                ProviderSettings.DEFAULT_MAX_REQUEST_TIME);
        return new GateFilter(new ApplicationGate(settings, new AnnotationRules(Set.of())), false);
    }

    /** A request with {@code properties} and {@code headers}; nothing else is asked of it. */
    private static ContainerRequestContext request(Map<String, Object> properties, Map<String, String> headers) {
        return (ContainerRequestContext) Proxy.newProxyInstance(
                PeerAddressTest.class.getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> properties.get((String) args[0]);
                    case "getHeaderString" -> headers.get((String) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theAdaptersPeer_winsOverTheConfiguredHeader() {
        ContainerRequestContext request =
                request(Map.of(GateFilter.PEER, "192.0.2.10"), Map.of("X-Real-IP", "203.0.113.9"));

        assertThat(filter("X-Real-IP").peerAddress(request)).isEqualTo("192.0.2.10");
    }

    @Test
    void withoutAnAdapter_theConfiguredHeaderStandsForThePeer() {
        ContainerRequestContext request = request(Map.of(), Map.of("X-Real-IP", " 203.0.113.9 "));

        assertThat(filter("X-Real-IP").peerAddress(request)).isEqualTo("203.0.113.9");
    }

    @Test
    void withoutAnAdapterOrTheHeader_thePeerIsUnknown() {
        assertThat(filter("X-Real-IP").peerAddress(request(Map.of(), Map.of()))).isNull();
        assertThat(filter(null).peerAddress(request(Map.of(), Map.of("X-Real-IP", "203.0.113.9"))))
                .as("a header nobody configured is not believed")
                .isNull();
    }
}

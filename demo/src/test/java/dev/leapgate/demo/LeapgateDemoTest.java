package dev.leapgate.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The demo's own settings: a mistake is said naming the setting and the value. */
class LeapgateDemoTest {

    @ParameterizedTest
    @ValueSource(strings = {"0", "8080", "65535"})
    void aPortFrom0To65535_isTheDemosPort(String port) {
        assertThat(LeapgateDemo.port(port)).isEqualTo(Integer.parseInt(port));
    }

    /** It was Java's "For input string: "abc"" or "port out of range:99999", naming neither. */
    @ParameterizedTest
    @ValueSource(strings = {"abc", "80 80", "-1", "65536", "99999999999"})
    void anyOtherPort_isRefused_namingTheSettingAndTheValue(String port) {
        IllegalArgumentException e =
                catchThrowableOfType(IllegalArgumentException.class, () -> LeapgateDemo.port(port));

        assertThat(e).isNotNull();
        assertThat(e.getMessage())
                .isEqualTo("port (-Dport or PORT) must be a whole number from 0 to 65535 (0 picks a free one), was '"
                        + port + "'");
    }

    /** The banner names the store as Leapgate's own messages do: without its password. */
    @Test
    void theBanner_namesTheStore_withoutItsPassword() {
        String banner = LeapgateDemo.banner(
                "127.0.0.1",
                8081,
                Optional.of(Path.of("rules.properties")),
                Optional.of("redis://:s3cret@127.0.0.1:6379"));

        assertThat(banner)
                .contains("store:     redis://:***@127.0.0.1:6379 (limits shared")
                .doesNotContain("s3cret");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "0.0.0.0", "localhost"})
    void anAddressOfThisMachine_isAHostToListenOn(String host) {
        LeapgateDemo.checkHost(host);
    }

    /**
     * An address of another machine was reported as "192.0.2.1:8080 is in use (another server
     * listens there): start the demo on another port", and a name that does not resolve as Jetty's
     * "Failed to bind to nonexistent.invalid/<unresolved>:8080" in a stack trace.
     */
    @ParameterizedTest
    @ValueSource(strings = {"192.0.2.1", "nonexistent.invalid"})
    void aHostThatIsNotThisMachine_isRefused_namingTheSettingAndTheValue(String host) {
        IllegalArgumentException e =
                catchThrowableOfType(IllegalArgumentException.class, () -> LeapgateDemo.checkHost(host));

        assertThat(e).isNotNull();
        assertThat(e.getMessage()).startsWith("host (-Dhost or HOST): '" + host + "' is not");
    }
}

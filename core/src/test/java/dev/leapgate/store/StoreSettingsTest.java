package dev.leapgate.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.config.ConfigParser;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What logs and messages show of a store's URI: never its password, in any of the forms the
 * store takes. A Sentinel or Cluster URI of several hosts used to be shown whole, password and
 * all (Java's {@code URI} has no user info for such an authority), in every WARN of an outage
 * and in the start's error messages.
 */
class StoreSettingsTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "redis://:s3cret@10.0.0.1:6379/0                                     | redis://:***@10.0.0.1:6379/0",
                "redis://app:s3cret@10.0.0.1:6379                                    | redis://app:***@10.0.0.1:6379",
                "redis://s3cret@10.0.0.1:6379                                        | redis://***@10.0.0.1:6379",
                "rediss://app:s3cret@redis.example:6380?verifyPeer=CA                | rediss://app:***@redis.example:6380?verifyPeer=CA",
                "redis-sentinel://:s3cret@10.0.0.1:26379/?sentinelMasterId=m         | redis-sentinel://:***@10.0.0.1:26379/?sentinelMasterId=m",
                "redis-sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26379/?sentinelMasterId=m | redis-sentinel://:***@10.0.0.1:26379,10.0.0.2:26379/?sentinelMasterId=m",
                "redis-cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7000              | redis-cluster://app:***@10.0.0.1:7000,10.0.0.2:7000",
                "redis-cluster://10.0.0.1:7000,10.0.0.2:7000                         | redis-cluster://10.0.0.1:7000,10.0.0.2:7000",
                "redis://10.0.0.1:6379                                               | redis://10.0.0.1:6379",
                "redis://[::1]:6379/0                                                | redis://[::1]:6379/0",
                // several IPv6 hosts, as the configuration reads them (brackets percent-encoded)
                "redis-cluster://:s3cret@%5B::1%5D:7000,%5B2001:db8::5%5D:7001?verifyPeer=NONE | redis-cluster://:***@[::1]:7000,[2001:db8::5]:7001?verifyPeer=NONE",
            })
    void shownUri_neverShowsThePassword_ofAnyFormOfStore(String uri, String shown) {
        String text = StoreSettings.of(URI.create(uri)).shownUri();
        assertThat(text).isEqualTo(shown).doesNotContain("s3cret");
    }

    /**
     * The settings as text (a record's toString, and so the configuration's, which holds them):
     * what an application that logs its configuration writes. It showed the URI whole, password
     * and all.
     */
    @Test
    void theSettingsAndTheConfigurationAsText_showNoPassword() {
        StoreSettings settings = StoreSettings.of(URI.create("redis://app:s3cret@10.0.0.1:6379"));
        assertThat(settings.toString())
                .contains("redis://app:***@10.0.0.1:6379")
                .doesNotContain("s3cret");
        assertThat(ConfigParser.parse(Map.of("store", "redis://:s3cret@10.0.0.1:6379", "rules", "none"), "test")
                        .toString())
                .contains("redis://:***@10.0.0.1:6379")
                .doesNotContain("s3cret");
    }

    /**
     * Settings made in code are held to what the configuration's keys are: a prefix with a brace
     * (one hash tag: every key in one Redis Cluster slot) or a decision that may wait an hour was
     * taken as given.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{app}      | 50  | keyPrefix must be 1 to 64 letters, digits, '_', '.', ':' or '-', was '{app}'",
                "''         | 50  | keyPrefix must be",
                "leapgate   | 0   | timeout must be positive and at most PT10S, was PT0S",
                "leapgate   | 3600000 | timeout must be positive and at most PT10S, was PT1H",
            })
    void settingsMadeInCode_areRefusedAsTheConfigurationRefusesThem(String prefix, long millis, String message) {
        URI uri = URI.create("redis://10.0.0.1:6379");
        assertThatThrownBy(
                        () -> new StoreSettings(uri, prefix, Duration.ofMillis(millis), FailurePolicy.LOCAL_SHARE, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
        assertThat(new StoreSettings(uri, "app-1:v2", StoreSettings.MAX_TIMEOUT, FailurePolicy.CLOSED, 2).keyPrefix())
                .isEqualTo("app-1:v2");
    }
}

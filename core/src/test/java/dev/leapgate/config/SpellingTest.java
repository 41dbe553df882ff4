package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpellingTest {

    @Test
    void distance_countsInsertionsDeletionsSubstitutionsAndSwapsAsOneEach() {
        assertThat(Spelling.distance("limit", "limit")).isZero();
        assertThat(Spelling.distance("limt", "limit")).isEqualTo(1);
        assertThat(Spelling.distance("limitt", "limit")).isEqualTo(1);
        assertThat(Spelling.distance("limot", "limit")).isEqualTo(1);
        assertThat(Spelling.distance("lmiit", "limit")).isEqualTo(1);
        assertThat(Spelling.distance("mtach", "match")).isEqualTo(1);
        assertThat(Spelling.distance("scpoe", "scope")).isEqualTo(1);
        assertThat(Spelling.distance("in-fligth", "in-flight")).isEqualTo(1);
        assertThat(Spelling.distance("maxqueue", "max-queue")).isEqualTo(1);
        assertThat(Spelling.distance("bukets", "buckets")).isEqualTo(1);
        assertThat(Spelling.distance("windw", "window")).isEqualTo(1);
        assertThat(Spelling.distance("maxwiat", "max-wait")).isEqualTo(2);
    }

    @Test
    void nearest_ignoresCase_andPrefersTheCloser() {
        List<String> keys = List.of("status", "origin", "deny");

        assertThat(Spelling.nearest("STATUS", keys)).isEqualTo("status");
        assertThat(Spelling.nearest("orgin", keys)).isEqualTo("origin");
        assertThat(Spelling.nearest("den", keys)).isEqualTo("deny");
        assertThat(Spelling.nearest("x", List.of("ip"))).isNull(); // not closer than it is long
        assertThat(Spelling.nearest("statistics", keys)).isNull();
        assertThat(Spelling.nearest("a".repeat(10_000), keys)).isNull();
        // A singular for its plural, however far apart their endings are.
        assertThat(Spelling.nearest("trusted-proxy", List.of("trusted-proxies", "status")))
                .isEqualTo("trusted-proxies");
        assertThat(Spelling.nearest("Trusted-Proxy", List.of("trusted-proxies")))
                .isEqualTo("trusted-proxies");
        assertThat(Spelling.nearest("statu", List.of("status"))).isEqualTo("status");
        assertThat(Spelling.nearest("proxy", List.of("trusted-proxies"))).isNull();
    }

    @Test
    void nearestSettingKey_comparesAsAnEnvironmentVariableSpellsKeys() {
        assertThat(ConfigParser.nearestSettingKey("TRUSTEDPROXYS")).isEqualTo("trusted-proxies");
        assertThat(ConfigParser.nearestSettingKey("trusted_proxy")).isEqualTo("trusted-proxies");
        assertThat(ConfigParser.nearestSettingKey("STOREKEYPREFX")).isEqualTo("store-key-prefix");
        assertThat(ConfigParser.nearestSettingKey("ratelimitheader")).isEqualTo("rate-limit-headers");
        // Names of other programs that share the prefix.
        assertThat(ConfigParser.nearestSettingKey("REDIS7SERVER")).isNull();
        assertThat(ConfigParser.nearestSettingKey("redisserver")).isNull();
        assertThat(ConfigParser.nearestSettingKey("HOME")).isNull();
        assertThat(ConfigParser.nearestSettingKey("VERSION")).isNull();
        assertThat(ConfigParser.nearestSettingKey("DEBUG")).isNull();
    }
}

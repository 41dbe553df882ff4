package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.net.IpAddress;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OriginTest {

    @Test
    void equals_sameIdentifier_isEqual_andHashesAlike() {
        assertThat(Origin.id("alice")).isEqualTo(Origin.id("alice")).hasSameHashCodeAs(Origin.id("alice"));
        assertThat(Origin.secret("k-123")).isEqualTo(Origin.secret("k-123"));
        assertThat(Origin.id("alice")).isNotEqualTo(Origin.id("bob"));
    }

    @Test
    void equals_aSecretAndAPlainIdentifierWithTheSameText_areNotEqual() {
        Origin secret = Origin.secret("k-123");
        Origin plain = Origin.id("k-123");

        assertThat(secret.key()).as("counted alike").isEqualTo(plain.key());
        assertThat(secret).isNotEqualTo(plain);
        assertThat(plain).isNotEqualTo(secret);
        // A set holding the secret must not report the plain one (which prints the key) as present.
        assertThat(Set.of(secret)).doesNotContain(plain);
    }

    @Test
    void ip_ofALiteral_groupsIpv6ByItsSlash64_asTheFiltersDoByDefault() {
        assertThat(Origin.ip("203.0.113.7")).isEqualTo(Origin.ip(IpAddress.parse("203.0.113.7"), 64));
        assertThat(Origin.ip("2001:db8:1:2::1").key())
                .as("one client, whichever address of its /64 it picks")
                .isEqualTo(Origin.ip("2001:db8:1:2:ffff::9").key())
                .isNotEqualTo(Origin.ip("2001:db8:1:3::1").key());
    }

    @Test
    void ip_ofAHostName_orNothing_isRefused_naming_theText() {
        assertThatThrownBy(() -> Origin.ip("localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localhost");
        assertThatThrownBy(() -> Origin.ip((String) null)).isInstanceOf(NullPointerException.class);
    }
}

package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;

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
}

package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review: a password with a character a URI must escape ('#', '/', '?'), written unescaped, cuts
 * the authority short; the start fails (good), but its message must not show the password.
 */
class StoreUriPasswordTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "redis://:secret#1@redis.internal:6379",
                "redis://app:secret/1@redis.internal:6379",
                "redis://app:secret?1@redis.internal:6379",
                "redis-cluster://:secret#1@10.0.0.1:7000,10.0.0.2:7001",
                "redis://app:99999#1@redis.internal:6379",
            })
    void aPasswordWithAnUnescapedReservedCharacter_isNeverShown(String store) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "10/1m");
        ConfigException e = catchThrowableOfType(
                ConfigException.class,
                () -> HttpGate.builder(ConfigParser.parse(settings, "test"))
                        .build()
                        .close());
        assertThat(e).as("%s accepted", store).isNotNull();
        assertThat(e.problems())
                .singleElement()
                .asString()
                .startsWith("store = ")
                .doesNotContain("secret")
                .doesNotContain("99999");
    }
}

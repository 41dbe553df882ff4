package dev.leapgate.redis;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The gate the store's fault tests decide with. */
final class LoginGate {

    private LoginGate() {}

    /**
     * A gate with one shared rule, {@code POST /login} at 10 per minute per client, in the store at
     * {@code store} with a time budget of {@code budget}; two instances, so a local share of 5.
     */
    static HttpGate of(String store, Duration budget, String onFailure) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-timeout", budget.toMillis() + "ms");
        settings.put("store-on-failure", onFailure);
        settings.put("store-instances", "2");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "10/1m");
        settings.put("rule.login.scope", "per-origin");
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build();
    }
}

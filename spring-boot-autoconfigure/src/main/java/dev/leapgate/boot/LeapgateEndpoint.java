package dev.leapgate.boot;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ReloadingRules;
import dev.leapgate.http.HttpGate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code leapgate}: reading it gives the gate's status (the JSON of the
 * status endpoint: rules, what they hold, the clients rejected most, statistics, reloads); writing
 * it (a {@code POST}) reloads the rules file now. Exposed like every endpoint only where the
 * application exposes it ({@code management.endpoints.web.exposure.include}); guard the write
 * operation as any other Actuator write (Spring Security).
 */
@Endpoint(id = "leapgate")
public class LeapgateEndpoint {

    private final HttpGate gate;

    public LeapgateEndpoint(HttpGate gate) {
        this.gate = gate;
    }

    /** The status JSON. */
    @ReadOperation(produces = "application/json")
    public String status() {
        return gate.statusJson();
    }

    /**
     * Reloads the rules file: {@code reloaded} and whether the file had changed, or the error that
     * kept the rules in force, also when the file has not changed since that version was rejected
     * (it is still not in force). Without a rules file there is nothing to reload.
     */
    @WriteOperation
    public Map<String, Object> reload() {
        Map<String, Object> result = new LinkedHashMap<>();
        Optional<ReloadingRules> file = gate.rulesFile();
        if (file.isEmpty()) {
            result.put("reloaded", false);
            result.put("reason", "no rules-file is configured");
            return result;
        }
        try {
            boolean changed = file.get().reload();
            Optional<String> rejected = changed ? Optional.empty() : file.get().lastError();
            result.put("reloaded", rejected.isEmpty());
            result.put("changed", changed);
            rejected.ifPresent(error -> result.put("error", error));
        } catch (ConfigException e) {
            result.put("reloaded", false);
            result.put("error", e.getMessage());
        }
        return result;
    }
}

package dev.leapgate.testing;

import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.config.OriginSource;
import dev.leapgate.config.ResponseSettings;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.rule.RuleSet;
import java.util.Optional;

/** Configurations for tests. */
public final class Configs {

    private Configs() {}

    /** The defaults, with {@code rules} inline. */
    public static LeapgateConfig withRules(RuleSet rules) {
        return new LeapgateConfig(
                rules,
                Optional.empty(),
                LeapgateConfig.DEFAULT_RELOAD_INTERVAL,
                ClientIpResolver.builder().build(),
                OriginSource.ip(),
                ResponseSettings.defaults(),
                dev.leapgate.config.MonitoringSettings.defaults(),
                java.util.Optional.empty());
    }
}

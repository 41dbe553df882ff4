package dev.leapgate.config;

import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Runs a parse that must fail and returns its problems. */
final class ConfigProblems {

    private ConfigProblems() {}

    static List<String> of(ThrowingCallable parse) {
        return catchConfigException(parse).problems();
    }

    static ConfigException catchConfigException(ThrowingCallable parse) {
        ConfigException e = catchThrowableOfType(ConfigException.class, parse);
        if (e == null) {
            throw new AssertionError("expected a ConfigException, but the input was accepted");
        }
        return e;
    }

    /** The problems of a rules file made of {@code lines}. */
    static List<String> ofRules(String... lines) {
        return of(() -> ConfigParser.parseRules(String.join("\n", lines), "rules.properties"));
    }
}

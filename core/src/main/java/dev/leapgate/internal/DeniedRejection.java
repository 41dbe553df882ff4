package dev.leapgate.internal;

import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import java.time.Duration;

/** The rejection of an origin on the deny list: no quota, no time after which it gets in. */
public final class DeniedRejection extends Rejection {

    private final Origin origin;

    public DeniedRejection(Origin origin) {
        this.origin = origin;
    }

    @Override
    public String rule() {
        return RuleName.DENY;
    }

    @Override
    public String reason() {
        return "origin " + origin + " is denied";
    }

    @Override
    public Quota quota() {
        return null;
    }

    @Override
    public Duration retryAfter() {
        return Duration.ZERO;
    }
}

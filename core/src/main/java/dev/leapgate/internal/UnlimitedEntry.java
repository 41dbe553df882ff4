package dev.leapgate.internal;

import dev.leapgate.Entry;
import dev.leapgate.Quota;
import java.util.List;

/**
 * The entry of a request that no rule applies to: it holds nothing and records nothing, so one
 * instance serves every such request. Closing and failing it do nothing; it never reports being
 * closed or failed.
 */
public final class UnlimitedEntry extends Entry {

    /** The one instance. */
    public static final UnlimitedEntry INSTANCE = new UnlimitedEntry();

    private UnlimitedEntry() {}

    @Override
    public List<Quota> quotas() {
        return List.of();
    }

    @Override
    public int permits() {
        return 0;
    }

    @Override
    public long startNanos() {
        return 0;
    }

    @Override
    public void fail() {}

    @Override
    public boolean isClosed() {
        return false;
    }

    @Override
    public boolean isFailed() {
        return false;
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
        return "Entry[no rule applies]";
    }
}

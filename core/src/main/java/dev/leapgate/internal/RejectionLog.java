package dev.leapgate.internal;

import dev.leapgate.Origin;
import dev.leapgate.rule.FlowRule;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Says, at most once per rule and interval, how many requests a rule rejected (or, for a shadow
 * rule, would have rejected) and who sent most of them: never a line per request. With no background thread, a rule's line for an interval is
 * written by its first rejection after the interval: it covers the time since the previous line
 * (at least the interval; longer when rejections paused), and a rule that stops rejecting says
 * nothing more.
 *
 * <p>A rule is its name and its mode (a shadow rule's lines are its own): a reload that keeps a
 * name in its mode, changed or not, keeps its tally, so the rule goes on counting toward its next
 * line. A reload that removes a rule, or switches it to the other mode, ends that tally ({@link
 * #rulesInForce}): what it counted since its last line is written at once, sooner than the
 * interval if need be (a rule that no longer exists has no next rejection to write it), and the
 * log forgets it, so that its state is bounded by the rules in force however many names reloads
 * bring and take.
 *
 * <p>The top senders of each rule are counted in a space-saving summary of {@value #TRACKED}
 * origins ({@link TopOrigins}): an origin that sent more than a {@value #TRACKED}th of the
 * rejections the summary counted is in it, its count over-estimated by at most the smallest
 * tracked counts, so the line says "about". A rejection that finds its part of the summary busy
 * (another rejection of the rule being counted there on another thread at that moment, or the
 * line being written) is counted in the rule's total but names no origin: under concurrent
 * rejections a named count can also be too low, while the totals of the lines count every
 * rejection.
 *
 * <p>An IPv6 client is named by its prefix, as it is counted. Identifiers (an API key header, a
 * principal) are the client's text: cut after {@value Shown#IDENTIFIER_CHARS} characters ({@link Shown#identifier}), and characters one cannot
 * see, line breaks first, written as escapes ({@link Shown#escaped}).
 *
 * <p>Concurrency: a rejection adds to its rule's count, a {@link LongAdder} (a cell per thread
 * once threads collide), and updates the summary under a lock that it only tries (a rejection
 * that finds it taken counts, without naming its origin); the line is written by the one thread
 * that moves the interval on, which takes the count with {@link LongAdder#sumThenReset()}: each
 * part of the count is taken and zeroed in one atomic step, so no rejection is in two lines, and
 * each is in the line that the rule's next rejection after the interval writes (none if the rule
 * rejects no more; the statistics count it all the same). A sink that throws (an appender set
 * not to ignore its failures) loses its line, never the request. So threads rejecting one client
 * at once write no word in common here (nor in the summary, {@link TopOrigins}).
 *
 * <p>A reload ({@link #rulesInForce}, after the new rules are in force) takes the tallies of the
 * rules gone from the maps and writes them; rejections by the new rules never reach them. A
 * request that decided under the rules before may still be rejected by a rule gone while the
 * reload happens: if it finds no tally, it makes one under the name no longer in force, which the
 * next reload writes and drops as any other; if it took the tally before the reload did, it counts
 * there after the line was written, so the reload keeps those tallies ({@code retiring}) until the
 * next one writes what they counted since and drops them. The rejection path is as it was: no
 * check of its own for a reload.
 */
public final class RejectionLog {

    /** Origins tracked per rule and interval. */
    static final int TRACKED = 8;
    /** Origins named in a line. */
    static final int SHOWN = 3;

    private final long intervalNanos;
    private final int ipv6PrefixLength;
    private final Consumer<String> sink;
    private final ConcurrentHashMap<String, Tally> tallies = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Tally> shadowTallies = new ConcurrentHashMap<>();
    /**
     * The tallies the last reload took from the rules it removed, written then: late rejections by
     * those rules (under the rules before that reload) still count into them until the next reload
     * writes them again and drops them. Replaced whole.
     */
    private final AtomicReference<List<Tally>> retiring = new AtomicReference<>(List.of());

    /**
     * @param interval the shortest time between two lines of one rule; positive
     * @param ipv6PrefixLength the prefix IPv6 clients are counted by, which names them ({@link
     *     Shown#client})
     * @param sink where the lines go (a logger)
     */
    public RejectionLog(Duration interval, int ipv6PrefixLength, Consumer<String> sink) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval must be positive, was " + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.ipv6PrefixLength = ipv6PrefixLength;
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Counts a rejection by {@code rule} of a request from {@code origin} (null when unknown). */
    public void record(String rule, Origin origin, long nowNanos) {
        tally(tallies, rule, false, nowNanos).record(origin, nowNanos);
    }

    /** Counts a request that shadow rule {@code rule} would have rejected; its lines say so. */
    public void recordShadow(String rule, Origin origin, long nowNanos) {
        tally(shadowTallies, rule, true, nowNanos).record(origin, nowNanos);
    }

    /**
     * Counts a request that {@code rule} rejected (or, {@code shadow}, would have rejected) because
     * its shared store could not decide ({@code store-on-failure = closed}): in the rule's total,
     * and in a count of its own that the line gives, but naming no client, as the client sent no
     * more than allowed.
     */
    public void recordUndecided(String rule, boolean shadow, long nowNanos) {
        tally(shadow ? shadowTallies : tallies, rule, shadow, nowNanos).recordUndecided(nowNanos);
    }

    /**
     * Ends the tallies of the rules that are not in {@code rules}, the rules a reload has just put
     * in force, by name and mode: each writes now what it counted since its last line (the line its
     * next rejection would have written, covering the time since its previous one), and is
     * dropped. The tallies of the rules still in force go on as they were. Also writes and drops
     * what the tallies the previous call ended counted since (late rejections under the rules
     * before it). Called after the rules are in force, one reload at a time.
     */
    public void rulesInForce(Collection<FlowRule> rules, long nowNanos) {
        Set<String> enforced = new HashSet<>();
        Set<String> shadow = new HashSet<>();
        for (FlowRule rule : rules) {
            (rule.shadow() ? shadow : enforced).add(rule.name());
        }
        List<Tally> ended = new ArrayList<>();
        takeAllBut(tallies, enforced, ended);
        takeAllBut(shadowTallies, shadow, ended);
        for (Tally tally : retiring.getAndSet(List.copyOf(ended))) {
            tally.end(nowNanos);
        }
        for (Tally tally : ended) {
            tally.end(nowNanos);
        }
    }

    /** Moves the tallies of {@code byRule} whose names are not in {@code keep} to {@code taken}. */
    private static void takeAllBut(ConcurrentHashMap<String, Tally> byRule, Set<String> keep, List<Tally> taken) {
        for (Map.Entry<String, Tally> e : byRule.entrySet()) {
            if (!keep.contains(e.getKey()) && byRule.remove(e.getKey(), e.getValue())) {
                taken.add(e.getValue());
            }
        }
    }

    /** How many rules the log holds a tally for (enforced and shadow); for tests. */
    int tallies() {
        return tallies.size() + shadowTallies.size();
    }

    /** How many tallies the last reload ended and keeps for late rejections; for tests. */
    int retiring() {
        return retiring.get().size();
    }

    private Tally tally(ConcurrentHashMap<String, Tally> byRule, String rule, boolean shadow, long nowNanos) {
        Tally tally = byRule.get(rule);
        if (tally == null) {
            Tally fresh = new Tally(rule, shadow, nowNanos);
            tally = byRule.putIfAbsent(rule, fresh);
            if (tally == null) {
                tally = fresh;
            }
        }
        return tally;
    }

    private static final VarHandle START;

    static {
        try {
            START = MethodHandles.lookup().findVarHandle(Tally.class, "start", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One rule's rejections since its last line. */
    private final class Tally {
        private final String rule;
        private final boolean shadow;
        private volatile long start;
        private final LongAdder count = new LongAdder();
        /** Of {@link #count}, the requests the store could not decide. */
        private final LongAdder undecided = new LongAdder();

        private final TopOrigins senders = new TopOrigins(TRACKED);

        Tally(String rule, boolean shadow, long nowNanos) {
            this.rule = rule;
            this.shadow = shadow;
            this.start = nowNanos;
        }

        void record(Origin origin, long nowNanos) {
            reportIfDue(nowNanos);
            count.increment();
            if (origin != null) {
                senders.offer(origin);
            }
        }

        void recordUndecided(long nowNanos) {
            reportIfDue(nowNanos);
            count.increment();
            undecided.increment();
        }

        /** Writes the line of the interval that {@code nowNanos} ends, on the one thread that moves it on. */
        private void reportIfDue(long nowNanos) {
            long since = start;
            if (nowNanos - since >= intervalNanos && START.compareAndSet(this, since, nowNanos)) {
                report(nowNanos - since);
            }
        }

        /**
         * Writes what the tally counted since its last line, its rule gone: the line its next
         * rejection would have written, however short the time. A rejection ending an interval
         * at the same moment writes its own line; each rejection is in one of the two.
         */
        void end(long nowNanos) {
            long since = (long) START.getAndSet(this, nowNanos);
            // A late rejection may have moved the start past this reload's clock reading.
            report(Math.max(0, nowNanos - since));
        }

        /** Writes the line of the interval that just ended, and starts the next one empty. */
        private void report(long periodNanos) {
            long rejected = count.sumThenReset();
            // Taken apart from the total: a rejection counted while this runs may be in one count
            // and not yet in the other. A line never says more of them than its total.
            long noStore = Math.min(undecided.sumThenReset(), rejected);
            List<TopOrigins.Counted> top = senders.top(TRACKED, true);
            long counted = 0;
            for (TopOrigins.Counted c : top) {
                counted += c.count();
            }
            if (rejected == 0) {
                return;
            }
            StringBuilder line = new StringBuilder(120)
                    .append(shadow ? "Leapgate: shadow rule '" : "Leapgate: rule '")
                    .append(rule)
                    .append(shadow ? "' would have rejected " : "' rejected ")
                    .append(rejected)
                    .append(rejected == 1 ? " request" : " requests")
                    .append(String.format(Locale.ROOT, " in the last %.1f s", periodNanos / 1e9));
            if (noStore > 0) {
                line.append(noStore == rejected ? ", all" : ", " + noStore + " of them")
                        .append(" because its shared store could not decide");
            }
            for (int k = 0; k < top.size(); k++) {
                if (k >= SHOWN && top.get(k).count() * TRACKED <= counted) {
                    break; // the first few, and every client above an eighth of what the summary counted
                }
                line.append(k == 0 ? "; most from " : ", ")
                        .append(shown(top.get(k).origin()))
                        .append(" (about ")
                        .append(top.get(k).count())
                        .append(')');
            }
            try {
                sink.accept(line.toString());
            } catch (RuntimeException e) {
                // The logger failed: there is nowhere to say so, and the request it came with,
                // rejected already, must still get its answer rather than this exception.
            }
        }
    }

    /**
     * A client as a line names it: an address or a fingerprint as it is; an identifier shown as
     * sent (a principal, a header's value) is the client's own text, so in quotes, its quotes and
     * backslashes escaped and the characters one cannot see written as escapes: it can neither
     * start a line of its own, nor rewrite a terminal, nor name clients and counts in the line
     * that were never rejected ({@code alice (about 1), 203.0.113.66 (about 99999)}).
     */
    private String shown(Origin origin) {
        String client = Shown.client(origin, ipv6PrefixLength);
        if (origin.ip() != null || origin.isSecret() || origin.equals(Origin.unknown())) {
            return Shown.escaped(client);
        }
        return "'" + Shown.escaped(client.replace("\\", "\\\\").replace("'", "\\'")) + "'";
    }
}

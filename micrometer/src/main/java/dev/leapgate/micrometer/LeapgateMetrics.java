package dev.leapgate.micrometer;

import dev.leapgate.config.ReloadingRules;
import dev.leapgate.http.HttpGate;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.rule.Scope;
import dev.leapgate.stats.RejectionCounts;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StatsTotals;
import dev.leapgate.stats.WaitStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one {@link HttpGate}, for any Micrometer registry (Prometheus names in brackets):
 *
 * <ul>
 *   <li>{@code leapgate.requests} ({@code leapgate_requests_total}), tags {@code resource} and
 *       {@code outcome}: {@code admitted}, {@code rejected}, {@code shadow-rejected};
 *   <li>{@code leapgate.requests.completed} ({@code leapgate_requests_completed_total}), tags
 *       {@code resource} and {@code outcome}: {@code succeeded}, {@code failed} (a success failed
 *       after its close, as {@code Entry}'s try-with-resources form does, counts as failed, and
 *       {@code succeeded} stays where it was until the next success instead of going down);
 *   <li>{@code leapgate.requests.in.flight} ({@code leapgate_requests_in_flight}), tag {@code
 *       resource}: admitted and not yet completed;
 *   <li>{@code leapgate.response.time} ({@code leapgate_response_time_seconds_count} and {@code
 *       _sum}), tag {@code resource}: completed requests and their summed response time (read in
 *       microseconds, {@code StatsTotals.responseMicros}: a sum in nanoseconds would overflow and
 *       go negative after 292 years of summed response time, ten days with 10,000 requests in
 *       flight);
 *   <li>{@code leapgate.gate.requests} ({@code leapgate_gate_requests_total}), tag {@code
 *       outcome}: {@code exempt} (matched by a rule, let through: the origin is exempt) and {@code
 *       denied} (the origin is in {@code deny});
 *   <li>{@code leapgate.rule.limit} ({@code leapgate_rule_limit}), tags {@code rule} and {@code
 *       kind} ({@code window} or {@code in-flight}): each rule's limit;
 *   <li>{@code leapgate.rule.rejections} ({@code leapgate_rule_rejections_total}), tags {@code rule}
 *       and {@code reason}: {@code limit-exceeded}, {@code too-many-permits}, and where they can
 *       happen {@code not-tracked} (a per-client in-flight rule) and {@code interrupted} (a rule
 *       that makes requests wait) and {@code store-unavailable} (a shared rule under {@code
 *       store-on-failure = closed}): the requests each rule rejected (a shadow rule: would have
 *       rejected);
 *   <li>{@code leapgate.store.available} ({@code leapgate_store_available}) and {@code
 *       leapgate.store.decided.without} ({@code leapgate_store_decided_without_total}), tag {@code
 *       rule}, for a rule whose window is in a shared store: 1 while the store decides, 0 while
 *       the failure policy does, and the decisions the policy made;
 *   <li>{@code leapgate.clients.tracked} ({@code leapgate_clients_tracked}), tag {@code rule}: the
 *       clients a per-client rule tracks now, at most its {@code max-origins} (not for a rule in
 *       a shared store, which keeps its clients itself; nor the next two);
 *   <li>{@code leapgate.clients.limited} ({@code leapgate_clients_limited}), tag {@code rule}: the
 *       clients a per-client rule holds at their limit now (their window full, or every in-flight
 *       slot taken), counted by a scan of the rule's table at each read;
 *   <li>{@code leapgate.clients.evicted} ({@code leapgate_clients_evicted_total}), tag {@code
 *       rule}: the clients a per-client rule evicted to make room for new ones (remembered: see
 *       the README);
 *   <li>{@code leapgate.queue.waiting} ({@code leapgate_queue_waiting}), tag {@code rule}: the
 *       requests waiting for their turn now, for each enforced rule that paces, warms up or borrows
 *       from the next bucket;
 *   <li>{@code leapgate.queue.wait} ({@code leapgate_queue_wait_seconds_count} and {@code _sum}),
 *       tag {@code rule}: the requests that waited for such a rule, and their summed waits (each
 *       the wait the rule asked for itself);
 *   <li>{@code leapgate.config.reloads} ({@code leapgate_config_reloads_total}), tag {@code
 *       result}: {@code applied} or {@code rejected} changed versions of the rules file (only with a
 *       rules file).
 * </ul>
 *
 * <p>Tags come only from the configuration (rule names, their patterns as resource names) and
 * fixed sets of values: never a client, a user or a request path, so that the number of series
 * stays what the configuration says. Everything is read from the gate's own statistics when the
 * registry asks (a scrape): the request path pays nothing for the metrics. When the rules change
 * (a reloaded rules file, {@link HttpGate#update}), the meters follow: new rules and resources get
 * meters, and the meters of those gone are removed from the registry; a changed rule keeps its
 * meters, whose counters go on from what they read whether the rule's counts go on or start over,
 * and a meter registered again counts from what it reads then ({@link Count}): a counter never
 * goes down, and a registry that sends increments is sent nothing twice.
 *
 * <pre>{@code
 * LeapgateMetrics metrics = new LeapgateMetrics(gate);
 * metrics.bindTo(registry);
 * // ... and when the gate goes away (the filter's destroy, the application's undeploy):
 * metrics.close();
 * }</pre>
 *
 * <p><b>Closing.</b> {@link #close} removes from the registry every meter this binder registered,
 * those of rules added since included, and stops following the rules (it removes its listener from
 * the gate, which then holds it no more). Close it when its gate goes away while the registry
 * stays: a registry that outlives the application ({@code Metrics.globalRegistry}, a registry of
 * the container's), or an application that builds a new gate (a restarted filter) and binds a new
 * {@code LeapgateMetrics} for it; and when the binder goes away while its gate stays (a gate that
 * outlives the binder's application context): a binder not closed stays reachable from its gate
 * and follows every change of its rules. A registry returns the meter it has for a name and tags
 * rather than registering another: a second binder with the same tags in the registry gets the
 * first binder's meters back, which go on reading the first gate (stale counts, or NaN once that
 * gate is collected), and the new gate is not exported. Two gates bound to one registry at once
 * need tags that tell them apart. (A Spring Boot application needs none of this: the starter's
 * binder, or an application's own {@code LeapgateMetrics} bean, is closed with the application
 * context.)
 *
 * <p>{@link #bindTo} logs a warning, naming the meter, when the registry has this binder's {@code
 * leapgate.gate.requests} already (another binder with the same tags, not closed): a mistake
 * worth fixing, but one of monitoring, so it does not stop the application from starting (a
 * redeployed application whose previous version was never closed would fail until the JVM
 * restarts). The check compares the meter the registry returns with those it had before, so it
 * also sees tags that the registry's filters add.
 *
 * <p>Concurrency: thread-safe; bound to several registries, it registers its meters in each. Binding, following the rules (on the
 * thread that changed them) and closing hold the binder's lock: a close racing a rules change
 * leaves no meter behind, and a change after the close registers nothing.
 */
public final class LeapgateMetrics implements MeterBinder, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeapgateMetrics.class);

    private final HttpGate gate;
    private final Tags tags;
    /**
     * The registries bound to, each with the meters registered there; empty before {@link #bindTo}
     * and after {@link #close}. Several: Spring Boot binds every {@code MeterBinder} bean to each
     * registry when it makes no composite of them (one registry {@code @Primary}).
     */
    private final List<Bound> bound = new ArrayList<>(); // guarded by this

    private boolean closed; // guarded by this

    /** One registry and the meters this binder registered there. */
    private static final class Bound {
        final MeterRegistry registry;
        /** The meters of the gate itself and of its rules file, registered once by {@link #bindTo}. */
        final List<Meter> gateMeters = new ArrayList<>();
        /**
         * The meters of each resource and rule now registered, by [resource, name] or [rule, the
         * rule, whether it is in a shared store].
         */
        final Map<List<Object>, List<Meter>> meters = new HashMap<>();
        /** The ids (name and tags) of every meter of a rule or resource registered here, gone or not. */
        final Set<String> registeredOnce = new HashSet<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * A count for the meter {@code name} with {@code tags}: from what {@code source} reads now if
         * this binder registered that meter here before (a rule or resource gone and back, which
         * may go on from what it counted: see {@link Count}), else from 0.
         */
        Count count(HttpGate gate, String name, Tags tags, boolean restarts, ToDoubleFunction<HttpGate> source) {
            boolean again = !registeredOnce.add(name + tags);
            return new Count(source, restarts, again ? source.applyAsDouble(gate) : 0);
        }
    }
    /**
     * What the gate calls when its rules change; added by {@link #bindTo} and removed by {@link
     * #close}, so that the gate, which may live on, holds a closed binder no more.
     */
    private final Consumer<RuleSet> rulesListener = rules -> follow();

    /** The metrics of {@code gate}, with no further tags. */
    public LeapgateMetrics(HttpGate gate) {
        this(gate, Tags.empty());
    }

    /** The metrics of {@code gate}, each with {@code tags} too (such as the application's name). */
    public LeapgateMetrics(HttpGate gate, Iterable<Tag> tags) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * Registers the gate's meters in {@code registry}, and from now on those of the rules in force.
     *
     * Binding to another registry too registers the meters there as well (Spring Boot binds each
     * {@code MeterBinder} bean to every registry when it makes no composite of them).
     *
     * @throws IllegalStateException if this binder is bound to {@code registry} already, or closed
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (closed) {
            throw new IllegalStateException("these metrics are closed: bind a new LeapgateMetrics");
        }
        Objects.requireNonNull(registry, "registry");
        for (Bound b : bound) {
            if (b.registry == registry) {
                throw new IllegalStateException("these metrics are bound to this registry already");
            }
        }
        Bound binding = new Bound(registry);
        List<Meter> gateMeters = binding.gateMeters;
        // Identity: a meter equals any other with its id. Those the registry had before this binder.
        Set<Meter> before = Collections.newSetFromMap(new IdentityHashMap<>());
        before.addAll(registry.find("leapgate.gate.requests").meters());
        for (String outcome : List.of("exempt", "denied")) {
            gateMeters.add(FunctionCounter.builder(
                            "leapgate.gate.requests",
                            gate,
                            g -> outcome.equals("exempt") ? g.exemptRequests() : g.deniedRequests())
                    .description("Requests matched by a rule from an exempt origin, or refused: their origin is denied")
                    .tags(tags)
                    .tag("outcome", outcome)
                    .register(registry));
        }
        if (before.contains(gateMeters.get(0))) {
            LOG.warn(
                    "Leapgate metrics: the registry has {} already, from another LeapgateMetrics with the same tags"
                            + " that was not closed; this binder gets that one's meters back, which read that one's"
                            + " gate, so this gate's counts are not exported. Close a LeapgateMetrics when its gate"
                            + " goes away (a filter's destroy, an application's undeploy), or give this one tags of"
                            + " its own",
                    gateMeters.get(0).getId());
        }
        gate.rulesFile().ifPresent(file -> {
            gateMeters.add(FunctionCounter.builder("leapgate.config.reloads", file, ReloadingRules::appliedReloads)
                    .description("Changed versions of the rules file applied or rejected")
                    .tags(tags)
                    .tag("result", "applied")
                    .register(registry));
            gateMeters.add(FunctionCounter.builder("leapgate.config.reloads", file, ReloadingRules::rejectedReloads)
                    .description("Changed versions of the rules file applied or rejected")
                    .tags(tags)
                    .tag("result", "rejected")
                    .register(registry));
        });
        // Listening first, and each time reading the rules the gate has then: a reload while this
        // binds is not missed, and meters follow the newest rules whatever order listeners run in.
        bound.add(binding);
        if (bound.size() == 1) {
            gate.addRulesListener(rulesListener);
        }
        follow();
    }

    /**
     * Removes from the registry every meter this binder registered, and registers no more (the rules
     * may change after this: it stops following them, and the gate no longer holds it: a gate that
     * lives on keeps no closed binder reachable). Idempotent; a binder never bound is closed too,
     * and then refuses {@link #bindTo}.
     *
     * <p>A meter is removed by its id: closing a binder whose meters another binder shares (same
     * tags, same registry: see the class comment) removes them for both.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!bound.isEmpty()) {
            // A rules change already under way on another thread may still call the listener once:
            // it waits for this lock, then finds the binder closed.
            gate.removeRulesListener(rulesListener);
        }
        for (Bound b : bound) {
            b.gateMeters.forEach(b.registry::remove);
            b.meters.values().forEach(registered -> registered.forEach(b.registry::remove));
        }
        bound.clear();
    }

    /** Registers the meters of the gate's rules and resources, and removes the others'. */
    private synchronized void follow() {
        if (closed) {
            return; // a rules change after the close, or one whose listener waited for it
        }
        for (Bound b : bound) {
            follow(b);
        }
    }

    /** {@link #follow()} in one registry. */
    private void follow(Bound b) {
        MeterRegistry registry = b.registry;
        Map<List<Object>, List<Meter>> meters = b.meters;
        Map<List<Object>, Supplier<List<Meter>>> wanted = new HashMap<>();
        for (FlowRule rule : gate.rules().rules()) {
            // A rule's meters stay while it has the same meters: through any change of its
            // settings, which its counts go on from or start over after (its rejections in another
            // mode, its evictions with another table), which each Count reads on from. Meters
            // registered anew would send the whole count again as one step's increment to a
            // registry that sends increments (Datadog, CloudWatch, OTLP delta).
            RuleMeters ruleMeters = RuleMeters.of(gate, rule);
            wanted.put(List.of("rule", ruleMeters), () -> registerRule(b, ruleMeters));
            String resource = rule.resource();
            wanted.putIfAbsent(List.of("resource", resource), () -> registerResource(b, resource));
        }
        meters.entrySet().removeIf(registered -> {
            if (wanted.containsKey(registered.getKey())) {
                return false;
            }
            registered.getValue().forEach(registry::remove);
            return true;
        });
        wanted.forEach((key, register) -> meters.computeIfAbsent(key, k -> register.get()));
        // A read right after the change: a count that started over reads less than before now,
        // before it can count past what it read (then its restart would go unseen).
        // (Gauges hold no count, and may scan a table.)
        for (List<Meter> registered : meters.values()) {
            for (Meter meter : registered) {
                if (meter instanceof FunctionCounter counter) {
                    counter.count();
                } else if (meter instanceof FunctionTimer timer) {
                    timer.count();
                    timer.totalTime(TimeUnit.MICROSECONDS);
                }
            }
        }
    }

    /** Which meters a rule has: its name, and what decides which meters it gets. */
    private record RuleMeters(
            String name, boolean inFlight, boolean shared, boolean clientTables, boolean notTracked, boolean waits) {
        static RuleMeters of(HttpGate gate, FlowRule rule) {
            boolean shared = gate.store(rule.name()).isPresent();
            boolean perOrigin = rule.scope().kind() == Scope.Kind.PER_ORIGIN;
            return new RuleMeters(
                    rule.name(),
                    rule.isInFlight(),
                    shared,
                    perOrigin && !shared, // a shared store keeps its clients
                    perOrigin && rule.isInFlight(),
                    gate.waits(rule.name()).isPresent());
        }
    }

    private List<Meter> registerRule(Bound b, RuleMeters rule) {
        MeterRegistry registry = b.registry;
        List<Meter> registered = new ArrayList<>();
        String name = rule.name();
        Tags ruleTags = tags.and("rule", name);
        registered.add(Gauge.builder("leapgate.rule.limit", gate, g -> limit(g, name))
                .description("The rule's limit: requests per window, or requests in flight")
                .tags(ruleTags)
                .tag("kind", rule.inFlight() ? "in-flight" : "window")
                .register(registry));
        List<String> reasons = new ArrayList<>(List.of("limit-exceeded", "too-many-permits"));
        if (rule.notTracked()) {
            reasons.add("not-tracked");
        }
        if (rule.waits()) {
            reasons.add("interrupted");
        }
        if (rule.shared()) {
            reasons.add("store-unavailable");
            registered.add(Gauge.builder(
                            "leapgate.store.available",
                            gate,
                            g -> g.store(name)
                                    .map(store -> store.available() ? 1 : 0)
                                    .orElse(0))
                    .description("1 while the shared store decides the rule, 0 while its failure policy does")
                    .tags(ruleTags)
                    .register(registry));
            registered.add(FunctionCounter.builder(
                            "leapgate.store.decided.without",
                            gate,
                            b.count(
                                    gate,
                                    "leapgate.store.decided.without",
                                    ruleTags,
                                    true,
                                    g -> g.store(name)
                                            .map(store -> (double) store.decidedWithoutStore())
                                            .orElse(ABSENT)))
                    .description(
                            "Decisions of a shared rule that its failure policy made: the store did not decide in time")
                    .tags(ruleTags)
                    .register(registry));
        }
        for (String reason : reasons) {
            Tags reasonTags = ruleTags.and("reason", reason);
            registered.add(FunctionCounter.builder(
                            "leapgate.rule.rejections",
                            gate,
                            b.count(
                                    gate,
                                    "leapgate.rule.rejections",
                                    reasonTags,
                                    true,
                                    g -> g.rejections(name)
                                            .map(c -> (double) count(c, reason))
                                            .orElse(ABSENT)))
                    .description("Requests a rule rejected (a shadow rule: would have rejected), by reason")
                    .tags(reasonTags)
                    .register(registry));
        }
        if (rule.clientTables()) {
            registered.add(Gauge.builder(
                            "leapgate.clients.tracked",
                            gate,
                            g -> g.trackedOrigins(name).orElse(0))
                    .description("Clients a per-client rule tracks now, at most its max-origins")
                    .tags(ruleTags)
                    .register(registry));
            registered.add(Gauge.builder(
                            "leapgate.clients.limited",
                            gate,
                            g -> g.limitedOrigins(name).orElse(0))
                    .description("Clients a per-client rule holds at their limit now (a scan of its table per read)")
                    .tags(ruleTags)
                    .register(registry));
            registered.add(FunctionCounter.builder(
                            "leapgate.clients.evicted",
                            gate,
                            b.count(gate, "leapgate.clients.evicted", ruleTags, true, g -> {
                                OptionalLong evicted = g.evictions(name);
                                return evicted.isPresent() ? evicted.getAsLong() : ABSENT;
                            }))
                    .description("Clients a per-client rule evicted to make room for new ones")
                    .tags(ruleTags)
                    .register(registry));
        }
        if (rule.waits()) {
            registered.add(Gauge.builder(
                            "leapgate.queue.waiting",
                            gate,
                            g -> g.waits(name).map(WaitStats::waitingNow).orElse(0))
                    .description("Requests waiting for their turn now (a paced, warming-up or borrowing rule)")
                    .tags(ruleTags)
                    .register(registry));
            Count waited = b.count(
                    gate,
                    "leapgate.queue.wait",
                    ruleTags,
                    true,
                    g -> g.waits(name).map(w -> (double) w.waited()).orElse(ABSENT));
            Count micros = b.count(
                    gate,
                    "leapgate.queue.wait.sum",
                    ruleTags,
                    true,
                    g -> g.waits(name).map(w -> (double) w.waitedMicros()).orElse(ABSENT));
            registered.add(FunctionTimer.builder(
                            "leapgate.queue.wait",
                            gate,
                            g -> (long) waited.applyAsDouble(g),
                            micros,
                            TimeUnit.MICROSECONDS)
                    .description("Requests that waited for their turn, and how long")
                    .tags(ruleTags)
                    .register(registry));
        }
        return registered;
    }

    /** The limit of the rule named {@code name} in force, or NaN if there is none. */
    private static double limit(HttpGate gate, String name) {
        for (FlowRule rule : gate.rules().rules()) {
            if (rule.name().equals(name)) {
                return rule.limit();
            }
        }
        return Double.NaN;
    }

    private List<Meter> registerResource(Bound b, String resource) {
        MeterRegistry registry = b.registry;
        List<Meter> registered = new ArrayList<>();
        Tags resourceTags = tags.and("resource", resource);
        registered.add(
                counter(b, resource, "leapgate.requests", "admitted", StatsTotals::admitted, "Requests decided"));
        registered.add(
                counter(b, resource, "leapgate.requests", "rejected", StatsTotals::rejected, "Requests decided"));
        registered.add(counter(
                b, resource, "leapgate.requests", "shadow-rejected", StatsTotals::shadowRejected, "Requests decided"));
        // The statistics have one success less when a request closed as a success is failed
        // afterwards (Entry's try-with-resources form): the counter holds its highest value (see
        // Count), which the statistics catch up with at the next success.
        registered.add(counter(
                b,
                resource,
                "leapgate.requests.completed",
                "succeeded",
                StatsTotals::succeeded,
                "Admitted requests completed"));
        registered.add(counter(
                b,
                resource,
                "leapgate.requests.completed",
                "failed",
                StatsTotals::failed,
                "Admitted requests completed"));
        registered.add(Gauge.builder(
                        "leapgate.requests.in.flight",
                        gate,
                        g -> stats(g, resource).map(ResourceStats::inFlight).orElse(0L))
                .description("Requests admitted and not yet completed")
                .tags(resourceTags)
                .register(registry));
        Count completed = b.count(
                gate,
                "leapgate.response.time",
                resourceTags,
                false,
                g -> total(g, resource, t -> t.succeeded() + t.failed()));
        Count micros = b.count(
                gate,
                "leapgate.response.time.sum",
                resourceTags,
                false,
                g -> total(g, resource, StatsTotals::responseMicros));
        registered.add(FunctionTimer.builder(
                        "leapgate.response.time",
                        gate,
                        g -> (long) completed.applyAsDouble(g),
                        micros,
                        TimeUnit.MICROSECONDS)
                .description("Completed requests and their response times")
                .tags(resourceTags)
                .register(registry));
        return registered;
    }

    private Meter counter(
            Bound b,
            String resource,
            String name,
            String outcome,
            ToDoubleFunction<StatsTotals> count,
            String description) {
        Tags outcomeTags = tags.and("resource", resource).and("outcome", outcome);
        // A resource's totals may dip by one and come back (see registerResource): no restart.
        return FunctionCounter.builder(
                        name, gate, b.count(gate, name, outcomeTags, false, g -> total(g, resource, count)))
                .description(description)
                .tags(outcomeTags)
                .register(b.registry);
    }

    /** What a {@link Count}'s source reads when there is nothing to read: no rule or resource of that name now. */
    private static final double ABSENT = -1;

    /**
     * A count as a counter must read it: never below what it read before, and going on across a
     * restart of what it reads. Its source reads a rule's or a resource's count by name (or {@link
     * #ABSENT}), so it reads on through the versions of the rule or resource:
     *
     * <ul>
     *   <li>between new rules taking force and this binder following them (the gate's rules
     *       listeners run after the change, this one among them), a rule or resource no longer in
     *       force reads as absent, and the count stays where it was;
     *   <li>a rule's count that started over (its rejections in another mode, its evictions with
     *       another table: {@code restarts}) reads less than before: the count goes on from what it
     *       had read, adding what the new one counts (what the old one counted after the last read
     *       is not in it; the binder reads every count right after each change, so that is little);
     *   <li>a resource's totals, which may dip by one and come back ({@code restarts} false), are
     *       held at the highest read until they catch up;
     *   <li>a meter registered again (a rule or resource gone and back, which may go on from what
     *       it counted) counts from what its source read then ({@code from}), so that a registry that
     *       sends increments (Datadog, CloudWatch, OTLP delta), which takes a new meter's first
     *       reading as its first increment, is not sent the whole count again.
     * </ul>
     *
     * A counter that went down would read as a reset (Prometheus) or a negative step.
     */
    private static final class Count implements ToDoubleFunction<HttpGate> {
        private final ToDoubleFunction<HttpGate> source;
        private final boolean restarts;
        private double last; // guarded by this: the source's last reading (not absent)
        private double offset; // guarded by this: added to the source's reading
        private double highest; // guarded by this

        Count(ToDoubleFunction<HttpGate> source, boolean restarts, double from) {
            this.source = source;
            this.restarts = restarts;
            if (from > 0) {
                this.last = from;
                this.offset = -from;
            }
        }

        @Override
        public synchronized double applyAsDouble(HttpGate gate) {
            double value = source.applyAsDouble(gate);
            if (value >= 0) {
                if (restarts && value < last) {
                    offset += last;
                }
                last = value;
                highest = Math.max(highest, offset + value);
            }
            return highest;
        }
    }

    private static long count(RejectionCounts counts, String reason) {
        return switch (reason) {
            case "limit-exceeded" -> counts.limitExceeded();
            case "not-tracked" -> counts.notTracked();
            case "too-many-permits" -> counts.tooManyPermits();
            case "interrupted" -> counts.interrupted();
            case "store-unavailable" -> counts.storeUnavailable();
            default -> throw new IllegalArgumentException(reason);
        };
    }

    private static Optional<ResourceStats> stats(HttpGate gate, String resource) {
        return gate.stats(resource);
    }

    /** One of a resource's totals; {@link #ABSENT} once no rule protects the resource. */
    private static double total(HttpGate gate, String resource, ToDoubleFunction<StatsTotals> count) {
        return stats(gate, resource).map(s -> count.applyAsDouble(s.totals())).orElse(ABSENT);
    }
}

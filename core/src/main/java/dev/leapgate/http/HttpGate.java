package dev.leapgate.http;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.Sleeper;
import dev.leapgate.config.ConfigException;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.config.MonitoringSettings;
import dev.leapgate.config.OriginSource;
import dev.leapgate.config.RateLimitHeaders;
import dev.leapgate.config.ReloadingRules;
import dev.leapgate.config.ResponseSettings;
import dev.leapgate.internal.Admission;
import dev.leapgate.internal.AdmittedEntry;
import dev.leapgate.internal.DeniedRejection;
import dev.leapgate.internal.Limit;
import dev.leapgate.internal.RejectionLog;
import dev.leapgate.internal.RuleBook;
import dev.leapgate.internal.Shown;
import dev.leapgate.internal.UnlimitedEntry;
import dev.leapgate.internal.Waits;
import dev.leapgate.net.CidrList;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OriginList;
import dev.leapgate.rule.RuleSet;
import dev.leapgate.stats.RejectionCounts;
import dev.leapgate.stats.ResourceStats;
import dev.leapgate.stats.StoreStats;
import dev.leapgate.stats.WaitStats;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.WindowStore;
import dev.leapgate.store.WindowStoreProvider;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leapgate for HTTP, framework-neutral: from a request to a decision, and from a decision to the
 * header fields and response to send. The servlet filter and the JAX-RS provider are thin shells
 * around one of these, so both behave the same.
 *
 * <p>Per request: the path is normalized ({@link RequestPath}: what the container routed, when the
 * adapter knows it, else the raw path) and the rules whose patterns match
 * it are found in an index built once per rule set ({@link PatternIndex}: the cost does not grow
 * with the number of rules). If none matches and no origin is denied, the request passes at once,
 * without resolving its origin or creating any state; otherwise the origin is resolved (the client
 * IP through the trusted-proxy rules, a header, or the principal, as configured) and the decision
 * layer decides under the matching rules (every one applies; see {@code
 * dev.leapgate.internal.Admission}). A rules file, if configured, is checked for changes lazily on
 * this path at most once per reload interval ({@link ReloadingRules}).
 *
 * <h2>Reload</h2>
 *
 * {@link #update} replaces the rule set atomically: a request sees either the old rules or the new
 * ones, never a mix, and never waits for a reload. A rule whose definition is unchanged keeps its
 * counters (a reload does not hand out a fresh allowance); the statistics of a resource carry over
 * while any rule protects it. An entry admitted under the old rules is released into the counters
 * it was admitted by.
 *
 * <p>Concurrency: the compiled rules are one immutable snapshot behind a volatile reference;
 * everything inside is thread-safe. Updates take a lock, one at a time: each compiles against the
 * snapshot in force (a changed rule goes on from its counters, and a per-client table hands its
 * clients over to one successor only), so two updates at once must not both start from it. A rule's global window is lock-free; a per-client table takes
 * a segment's read lock for a tracked client (its write lock to insert or evict one), and a
 * client's window is held for a few stores while it moves to a new bucket. No background thread.
 */
public final class HttpGate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpGate.class);
    /** The rejection log's own logger, so that operators can route or silence it alone. */
    private static final Logger REJECTIONS = LoggerFactory.getLogger("dev.leapgate.rejections");

    private final Admission admission;
    /** The decisions' rejection log, told of each reload; null when {@code rejection-log = 0s}. */
    private final RejectionLog rejectionLog;

    private final ClientIpResolver clientIp;
    private final OriginSource originSource;
    /**
     * Whether the origin is an {@code Authorization} or {@code Proxy-Authorization} header, whose
     * scheme is case-insensitive: see {@link #credentials}.
     */
    private final boolean credentialsHeader;

    private final ResponseSettings response;
    /** A denied origin's body, written once (an answer gets a copy: its array can be changed). */
    private final byte[] deniedBody;

    private final ReloadingRules reloading; // null without a rules file
    private final AtomicReference<Snapshot> snapshot;
    /** Held by {@link #update}: one update at a time, each from the snapshot the previous one set. */
    private final ReentrantLock updating = new ReentrantLock();

    private final List<Function<RuleSet, List<String>>> checks;
    private final String statusPath; // null: no status endpoint
    /**
     * The status path's last segment, which a request's path must contain literally (decoded) to
     * normalize to the status path: normalizing only removes characters or writes escapes. Null
     * when the status path holds an escape itself (then every request is normalized to check).
     */
    private final String statusLeaf;

    private final CidrList statusAllow;
    /** The names besides addresses and localhost a status request's Host may give; "*" for any. */
    private final Set<String> statusHosts;
    /** Whether a status request refused for its Host has been logged (once: clients choose it). */
    private final AtomicBoolean loggedStatusHost = new AtomicBoolean();
    /** The shared store of the rules that share their windows; null without one. */
    private final Limit.Store store;
    /** Whether the gate opened the store, and so closes it. */
    private final boolean ownsStore;

    private final LongAdder exempt = new LongAdder();
    private final LongAdder denied = new LongAdder();
    private final List<Consumer<RuleSet>> rulesListeners = new CopyOnWriteArrayList<>();
    /** What the checks found in the rules in force. */
    private volatile List<String> warnings = List.of();

    /**
     * A compiled rule set, its index, and each rule's {@code RateLimit-Policy} item, which is the
     * same for every response.
     */
    private record Snapshot(RuleBook book, PatternIndex<Limit> index, Map<Limit, Policy> policies) {
        static Snapshot of(RuleSet rules, Snapshot previous, Clock clock, Limit.Store store) {
            RuleBook book = RuleBook.compile(rules, previous == null ? null : previous.book, clock, store);
            List<PathPattern> patterns = new ArrayList<>();
            Map<Limit, Policy> policies = new IdentityHashMap<>();
            for (Limit limit : book.limits()) {
                FlowRule rule = limit.rule();
                patterns.add(rule.match());
                policies.put(limit, new Policy(rule));
            }
            return new Snapshot(book, new PatternIndex<>(patterns, List.of(book.limits()), Limit[]::new), policies);
        }
    }

    /**
     * A rule's {@code RateLimit-Policy} item, and the last list of items it headed: the rules of a
     * route are usually listed in the same order request after request, so the list is built once.
     */
    private static final class Policy {
        final String item;
        /** What precedes the remaining count in the rule's {@code RateLimit} item. */
        final String rateLimitPrefix;
        /** The rules of the last list this rule headed, in order, and that list; replaced whole. */
        volatile Joined joined;

        Policy(FlowRule rule) {
            this.item = RateLimitFields.policyItem(
                    rule.name(),
                    rule.limit(),
                    rule.isInFlight() ? null : rule.window().length());
            this.rateLimitPrefix = RateLimitFields.rateLimitPrefix(rule.name());
        }
    }

    private record Joined(Limit[] limits, String value) {}

    private HttpGate(Builder builder) {
        LeapgateConfig config = builder.config;
        this.rejectionLog = config.monitoring().rejectionLog().isZero()
                ? null
                : new RejectionLog(
                        config.monitoring().rejectionLog(),
                        config.clientIp().ipv6PrefixLength(),
                        builder.rejectionLines);
        this.admission = new Admission(builder.clock, builder.sleeper, rejectionLog);
        this.statusPath = config.monitoring().statusPath().orElse(null);
        this.statusLeaf = statusPath == null || statusPath.indexOf('%') >= 0
                ? null
                : statusPath.substring(statusPath.lastIndexOf('/') + 1);
        this.statusAllow = config.monitoring().statusAllow();
        this.statusHosts = config.monitoring().statusHosts();
        this.clientIp = config.clientIp();
        this.originSource = config.origin();
        this.credentialsHeader = originSource.kind() == OriginSource.Kind.HEADER
                && (originSource.headerName().equalsIgnoreCase("Authorization")
                        || originSource.headerName().equalsIgnoreCase("Proxy-Authorization"));
        this.response = config.response();
        this.deniedBody = response.problemBody()
                ? ProblemBody.denied(response.denyStatus()).getBytes(StandardCharsets.UTF_8)
                : NO_BODY;
        List<FlowRule> codeRules = List.copyOf(builder.codeRules);
        UnaryOperator<RuleSet> withCodeRules = rules -> rules.withRules(codeRules);
        // A rules file is read once: its rules, and the stamp of those very bytes, from which the
        // reloading tells a later change (one made while the gate is built included).
        ReloadingRules.Loaded loaded = config.rulesFile()
                .map(file -> ReloadingRules.load(file, config.origin()))
                .orElse(null);
        RuleSet initial = withCodeRules.apply(loaded != null ? loaded.rules() : config.rules());
        // Opened once the rules are read: a configuration that fails leaves no connection behind.
        this.store = config.store()
                .map(settings -> new Limit.Store(
                        builder.windowStore != null ? builder.windowStore : openStore(settings), settings))
                .orElse(null);
        this.ownsStore = store != null && builder.windowStore == null;
        this.snapshot = new AtomicReference<>(Snapshot.of(initial, null, builder.clock, store));
        if (store != null) {
            logSharing(initial);
        }
        List<Function<RuleSet, List<String>>> allChecks = new ArrayList<>();
        ClientIpResolver clients = config.clientIp();
        allChecks.add(rules -> RuleChecks.narrowerThanAClient(rules, clients));
        if (config.rulesFile().isEmpty() && !config.rulesNone()) {
            allChecks.add(HttpGate::limitsNothing);
        }
        allChecks.addAll(builder.checks);
        this.checks = List.copyOf(allChecks);
        runChecks(initial);
        this.reloading = config.rulesFile()
                .map(file -> new ReloadingRules(
                        loaded,
                        file,
                        config.reloadInterval(),
                        builder.clock,
                        config.origin(),
                        this::updateRules,
                        withCodeRules))
                .orElse(null);
    }

    /**
     * Opens the store the settings name, with the first {@link WindowStoreProvider} on the class
     * path that supports its scheme.
     */
    private static WindowStore openStore(StoreSettings settings) {
        String scheme = settings.uri().getScheme();
        List<ServiceLoader<WindowStoreProvider>> loaders = List.of(
                ServiceLoader.load(WindowStoreProvider.class),
                ServiceLoader.load(WindowStoreProvider.class, HttpGate.class.getClassLoader()));
        Set<String> found = new LinkedHashSet<>();
        boolean redisFound = false;
        for (ServiceLoader<WindowStoreProvider> loader : loaders) {
            for (WindowStoreProvider provider : loader) {
                found.add(provider.getClass().getName());
                redisFound |= provider.supports("redis");
                if (provider.supports(scheme)) {
                    try {
                        return provider.open(settings);
                    } catch (IllegalArgumentException e) {
                        throw new ConfigException(
                                "store", List.of("store = " + settings.shownUri() + ": " + e.getMessage()));
                    }
                }
            }
        }
        // With leapgate-redis present, "add leapgate-redis" would send the user after what is there:
        // the scheme is the mistake.
        String redis = "redis://, rediss://, redis-sentinel://, rediss-sentinel://, redis-cluster:// and"
                + " rediss-cluster://";
        throw new ConfigException(
                "store",
                List.of("store = " + settings.shownUri() + ": no shared store for scheme '" + scheme + "' on the class"
                        + " path; "
                        + (redisFound
                                ? "leapgate-redis, which is there, takes " + redis
                                : (found.isEmpty()
                                                ? ""
                                                : "the stores there (" + String.join(", ", found)
                                                        + ") do not take it; ")
                                        + "for Redis (" + redis + ") add dev.leapgate:leapgate-redis")));
    }

    /**
     * A gate without a rules file whose rules are none and deny no one, which it was not told is
     * meant (rules = none): a forgotten configuration, under which every request passes.
     */
    private static List<String> limitsNothing(RuleSet rules) {
        if (!rules.rules().isEmpty() || !rules.deny().isEmpty()) {
            return List.of();
        }
        return List.of("no rule is configured, so every request passes unlimited: give rule.<name>.<setting>"
                + " settings or a rules-file, or say rules = none if there is no rule on purpose");
    }

    /** Says at start which rules share their windows and which stay per instance. */
    private static void logSharing(RuleSet rules) {
        List<String> shared = new ArrayList<>();
        List<String> local = new ArrayList<>();
        for (FlowRule rule : rules.rules()) {
            (rule.isShared() ? shared : local).add(rule.name());
        }
        LOG.info(
                "Leapgate: rules sharing their windows through the store: {}; per instance: {}",
                shared.isEmpty() ? "none" : String.join(", ", shared),
                local.isEmpty()
                        ? "none"
                        : String.join(", ", local)
                                + " (in-flight, pace, warm-up and borrow rules, and rules with store = local)");
    }

    /**
     * Stops using the shared store, if the gate opened one (a store given to {@link
     * Builder#windowStore} is the caller's to close). The gate keeps deciding afterwards, under
     * its failure policy. Adapters call this when the application stops.
     */
    @Override
    public void close() {
        if (store != null && ownsStore) {
            store.windows().close();
        }
    }

    /**
     * How the shared store of the rule named {@code ruleName} is doing. Empty when no rule of that
     * name is in force, or its window is in this process.
     */
    public Optional<StoreStats> store(String ruleName) {
        return limit(ruleName).flatMap(Limit::store);
    }

    /**
     * Starts a gate for a configuration; a rules file it names is read now.
     *
     * @throws dev.leapgate.config.ConfigException if the rules file cannot be read or is invalid
     */
    public static Builder builder(LeapgateConfig config) {
        return new Builder(config);
    }

    /** The rules in force. */
    public RuleSet rules() {
        return snapshot.get().book.rules();
    }

    /**
     * Replaces the rules atomically; concurrent calls take effect one after the other. Unchanged
     * rules keep their counters; see the class comment. Rules added in code ({@link
     * Builder#addRules}) are not kept: pass them in {@code rules}. With a rules file, its next
     * change replaces them, also back to the version read before.
     */
    public void update(RuleSet rules) {
        updateRules(rules);
        if (reloading != null) {
            // After the update, outside its lock (a reload holds the file's lock, then this one):
            // the file's version is no longer the one in force.
            reloading.replacedElsewhere();
        }
    }

    /** {@link #update}, also for a version of the rules file. */
    private void updateRules(RuleSet rules) {
        Objects.requireNonNull(rules, "rules");
        updating.lock();
        try {
            apply(rules);
        } finally {
            updating.unlock();
        }
    }

    /** {@link #update}, with the lock held. */
    private void apply(RuleSet rules) {
        Snapshot next = Snapshot.of(rules, snapshot.get(), admission.clock(), store);
        snapshot.set(next);
        if (rejectionLog != null) {
            // After the new rules are in force: the rules they removed write what they counted
            // since their last lines, and the log forgets them (kept rules go on counting).
            rejectionLog.rulesInForce(rules.rules(), admission.clock().nanoTime());
        }
        try {
            runChecks(rules);
        } catch (Throwable e) { // also a checked one nothing declares (a "sneaky throw"), or an Error
            rethrowIfFatal(e);
            // The rules are in force: the listeners must still hear of them (metrics follow them),
            // and a reload must not report as rejected what is applied.
            warnings = List.of();
            LOG.warn("Leapgate: a check of the rules failed; the new rules are in force", e);
        }
        int count = rules.rules().size();
        LOG.info(
                "Leapgate rules updated: {} rule{} ({} kept with their counters, {} changed going on from their"
                        + " counts), exempt [{}], deny [{}]",
                count,
                count == 1 ? "" : "s",
                next.book.kept(),
                next.book.continued(),
                shown(rules.exempt()),
                shown(rules.deny()));
        for (Consumer<RuleSet> listener : rulesListeners) {
            try {
                listener.accept(rules);
            } catch (Throwable e) { // also a checked one nothing declares, or an Error (a class missing)
                rethrowIfFatal(e);
                LOG.warn("Leapgate: a rules listener failed; the new rules are in force", e);
            }
        }
    }

    /**
     * Rethrows what the JVM cannot go on from (out of memory, a stack overflow); anything else a
     * check or a listener throws after the rules are in force (a {@link LinkageError} of a class a
     * metrics library misses) is theirs alone: the rules are in force, and a reload applied.
     */
    private static void rethrowIfFatal(Throwable e) {
        if (e instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }

    /**
     * Calls {@code listener} with the new rules each time they replace the rules in force (a
     * reloaded rules file, or {@link #update}), on the thread that replaced them, after they are in
     * force: for a metrics binder that follows the rules. A listener that throws is logged, and the
     * rules stay in force. The gate holds the listener, and what it refers to, until {@link
     * #removeRulesListener}: an owner that goes away before the gate (a closed metrics binder)
     * removes it.
     */
    public void addRulesListener(Consumer<RuleSet> listener) {
        rulesListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes {@code listener} (the same object given to {@link #addRulesListener}; once, if it was
     * added more than once): the gate no longer calls it, nor holds it. A change of the rules under
     * way on another thread may still call it once. Does nothing if it was not added.
     */
    public void removeRulesListener(Consumer<RuleSet> listener) {
        rulesListeners.remove(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * The gate's status as JSON: each rule with what it holds now (and, for a per-client rule, the
     * clients it rejected most recently), each resource's statistics, the exempt and denied
     * requests, the rules file's reloads. See the README's "Status endpoint".
     */
    public String statusJson() {
        // The rules and the resources of one version: a reload between two reads would show a
        // rule beside another version's resources, without its own.
        RuleBook book = snapshot.get().book;
        return GateStatus.json(
                this,
                book.limits(),
                book.stats(),
                clientIp.ipv6PrefixLength(),
                secretOrigins(),
                admission.clock().nanoTime());
    }

    /** Whether origins are a header's values shown as fingerprints: API keys, never printed. */
    private boolean secretOrigins() {
        return originSource.fingerprinted();
    }

    /** An exempt or deny list as the log shows it: with secret origins, an identifier by its fingerprint. */
    private String shown(OriginList list) {
        return secretOrigins() ? list.fingerprinted() : list.toString();
    }

    /**
     * The status if {@code request} asks for it: a {@code GET} of the configured {@code
     * status-path} from an address in {@code status-allow} (the TCP peer's address, never a
     * forwarded one; and for a request a proxy relayed, which carries {@code Forwarded}, {@code
     * X-Forwarded-For} or {@code X-Real-IP}, also the client that trusted proxies name), for a
     * {@code Host} that is an IP address, {@code localhost} or in {@code status-hosts}. The
     * answer is the live page for a request that accepts {@code text/html} (a browser), the JSON
     * otherwise. Empty when the request does not ask for the status, and always
     * without a {@code status-path}: the request then goes on as any other.
     */
    public Optional<StatusResponse> status(HttpRequestView request) {
        if (statusPath == null || !"GET".equals(request.method())) {
            return Optional.empty();
        }
        String decoded = request.decodedPath();
        if (statusLeaf != null) {
            // Most requests are not for the status: tell without normalizing their path a second time.
            // No path (a view of the application's own): the root, as normalize takes it.
            String text = decoded != null ? decoded : Objects.requireNonNullElse(request.rawPath(), "/");
            if ((decoded != null || text.indexOf('%') < 0) && !text.contains(statusLeaf)) {
                return Optional.empty();
            }
        }
        String key = decoded != null ? RequestPath.normalizeDecoded(decoded) : RequestPath.normalize(request.rawPath());
        if (!statusPath.equals(key)) {
            return Optional.empty();
        }
        IpAddress peer = ClientIpResolver.parsePeer(request.remoteAddr());
        if (peer == null || !statusAllow.contains(peer) || !fromAllowedClient(request, peer)) {
            return Optional.empty();
        }
        List<String> host = request.headers("Host");
        // Several Host fields (which RFC 9112 answers with 400) are not read as their first alone.
        if (host.size() > 1) {
            return Optional.empty();
        }
        if (!host.isEmpty() && !statusHostAllowed(host.get(0))) {
            if (loggedStatusHost.compareAndSet(false, true)) {
                LOG.warn(
                        "Leapgate status: not answered to a request from an allowed address for host {}, which is"
                                + " no IP address, not localhost and not in status-hosts: a browser that DNS"
                                + " rebinding turned against this server names the attacker's host. If the name"
                                + " is this server's, add it to status-hosts. (Logged once.)",
                        Shown.value(host.get(0).length() > 100 ? host.get(0).substring(0, 100) + "..." : host.get(0)));
            }
            return Optional.empty();
        }
        return Optional.of(acceptsHtml(request) ? StatusResponse.page() : StatusResponse.json(statusJson()));
    }

    /**
     * Whether {@code host}, a request's {@code Host} field, may be given the status: an IP address
     * ({@code [::1]} bracketed), {@code localhost} or a name in {@code status-hosts}, with or
     * without a port (digits). Anything else after the host ({@code [::1]evil.example}) is refused.
     */
    private boolean statusHostAllowed(String host) {
        if (statusHosts.contains(MonitoringSettings.ANY_HOST)) {
            return true;
        }
        String text = host.strip();
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            return end > 1 && isPort(text, end + 1) && ClientIpResolver.parsePeer(text.substring(0, end + 1)) != null;
        }
        int colon = text.indexOf(':');
        if (colon != text.lastIndexOf(':')) {
            return false; // an IPv6 address must be bracketed in a Host field
        }
        if (colon >= 0 && !isPort(text, colon)) {
            return false;
        }
        String name = (colon < 0 ? text : text.substring(0, colon)).toLowerCase(Locale.ROOT);
        name = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
        return name.equals("localhost") || statusHosts.contains(name) || ClientIpResolver.parsePeer(name) != null;
    }

    /** Whether {@code text} from {@code at} is nothing, or a colon and 1 to 5 digits: a Host field's port. */
    private static boolean isPort(String text, int at) {
        if (at == text.length()) {
            return true;
        }
        int digits = text.length() - at - 1;
        if (text.charAt(at) != ':' || digits < 1 || digits > 5) {
            return false;
        }
        for (int i = at + 1; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** The header fields by which a proxy says that it relays a request for someone else. */
    private static final List<String> RELAY_FIELDS = List.of("Forwarded", "X-Forwarded-For", "X-Real-IP");

    /**
     * Whether the client behind an allowed peer is allowed too. A reverse proxy on an allowed
     * address (this machine, by default) connects from there for every client it serves, so a
     * request that a proxy says it relayed is answered only when the peer is a trusted proxy and
     * the client it names ({@link ClientIpResolver#resolveNamed}: not the proxy itself, for an entry
     * that names no client) is in {@code status-allow}; any
     * other peer is not believed about the client, and gets nothing.
     */
    private boolean fromAllowedClient(HttpRequestView request, IpAddress peer) {
        boolean relayed = false;
        for (String field : RELAY_FIELDS) {
            relayed |= hasValue(request, field);
        }
        if (!relayed) {
            return true;
        }
        // The proxy must name the client in the header that is believed: one that only sets
        // another (X-Real-IP) would otherwise leave the proxy itself as the client.
        boolean named = switch (clientIp.forwardingHeader()) {
            case FORWARDED -> hasValue(request, "Forwarded");
            case X_FORWARDED_FOR -> hasValue(request, "X-Forwarded-For");
            case PREFER_FORWARDED -> hasValue(request, "Forwarded") || hasValue(request, "X-Forwarded-For");
        };
        // A proxy that names no client (unknown, a unix socket) is not taken for its client: the
        // status is not given to whoever it relays because it runs on an allowed address.
        return named
                && clientIp.trustedProxies().contains(peer)
                && clientIp.resolveNamed(
                                request.remoteAddr(), request.headers("Forwarded"), request.headers("X-Forwarded-For"))
                        .map(statusAllow::contains)
                        .orElse(false);
    }

    private static boolean hasValue(HttpRequestView request, String field) {
        for (String value : request.headers(field)) {
            if (value != null && !value.isBlank()) {
                return true;
            }
        }
        return false;
    }

    private static boolean acceptsHtml(HttpRequestView request) {
        for (String accept : request.headers("Accept")) {
            if (accept.toLowerCase(Locale.ROOT).contains("text/html")) {
                return true;
            }
        }
        return false;
    }

    /** The status to pass to {@link #complete} for a request that got no response. */
    public static final int NO_RESPONSE = -1;

    /**
     * Completes an admitted request and closes its entry; only the first completion counts (an
     * asynchronous request may report a timeout, then its completion). The one rule for every
     * adapter: the request failed when it got no response ({@link #NO_RESPONSE}: an exception
     * escaped the application, it timed out, the client went away) or its response is a server
     * error (5xx, with or without an exception behind it); any other response succeeded, a 4xx
     * mapped from an exception included: the server did its job.
     *
     * @param decision what {@link #enter} returned; nothing to complete unless it is an {@link
     *     Entry}
     * @param status the response's status code, or {@link #NO_RESPONSE}
     */
    public static void complete(Decision decision, int status) {
        if (decision instanceof Entry entry && !entry.isClosed()) {
            if (status == NO_RESPONSE || status >= 500) {
                entry.fail();
            }
            entry.close();
        }
    }

    /** Requests from an exempt origin that a rule matched (let through unlimited), since the gate was built. */
    public long exemptRequests() {
        return exempt.sum();
    }

    /** Requests refused because their origin is in {@code deny}, since the gate was built. */
    public long deniedRequests() {
        return denied.sum();
    }

    private void runChecks(RuleSet rules) {
        List<String> found = new ArrayList<>();
        for (Function<RuleSet, List<String>> check : checks) {
            found.addAll(check.apply(rules));
        }
        found.forEach(warning -> LOG.warn("Leapgate: {}", warning));
        warnings = List.copyOf(found);
    }

    /**
     * What the gate's own checks (IPv6 {@code deny} entries and {@code origin:} scopes narrower than
     * a client; no rule at all, unless the configuration says {@code rules = none}) and the
     * adapter's checks ({@link Builder#check}) found wrong with the rules in force, such as rules
     * that can never match; logged at WARN when the rules were applied. Empty when all is well.
     */
    public List<String> warnings() {
        return warnings;
    }

    /** The statistics of every resource a rule protects. */
    public Collection<ResourceStats> stats() {
        return snapshot.get().book.stats();
    }

    /** The statistics of one resource (a rule pattern's text, e.g. {@code "GET /users/{id}"}). */
    public Optional<ResourceStats> stats(String resource) {
        return Optional.ofNullable(snapshot.get().book.stats(Objects.requireNonNull(resource, "resource")));
    }

    /**
     * How many origins the {@code per-origin} rule named {@code ruleName} tracks now: never more
     * than its {@code max-origins}. After a reload that gives the rule a new table (another window,
     * say), the new table's only: a client is counted once it comes back and is taken over (unlike
     * {@link #limitedOrigins}). Empty when no rule of that name is in force, or the rule has
     * another scope (it keeps no per-origin state).
     */
    public OptionalInt trackedOrigins(String ruleName) {
        int tracked = limit(ruleName).map(Limit::trackedOrigins).orElse(-1);
        return tracked < 0 ? OptionalInt.empty() : OptionalInt.of(tracked);
    }

    /**
     * How many clients the {@code per-origin} rule named {@code ruleName} holds at their limit now
     * (their window full, or every in-flight slot taken): a scan of the rule's table, for
     * monitoring; after a reload that gives the rule a new table, of the old one too, for the
     * clients it still holds. Empty when no rule of that name is in force, or the rule has another scope.
     */
    public OptionalInt limitedOrigins(String ruleName) {
        long now = admission.clock().nanoTime();
        int limited = limit(ruleName).map(l -> l.limitedOrigins(now)).orElse(-1);
        return limited < 0 ? OptionalInt.empty() : OptionalInt.of(limited);
    }

    /**
     * The requests that waited for the rule named {@code ruleName}: a rule that paces, warms up or
     * borrows from the next bucket (and is enforced, not in shadow mode). Empty when no rule of
     * that name is in force, or the rule never makes a request wait.
     */
    public Optional<WaitStats> waits(String ruleName) {
        return limit(ruleName).flatMap(Limit::waits).map(Waits::read);
    }

    /**
     * The requests the rule named {@code ruleName} rejected since it came into force (a rule kept
     * through a reload keeps its counts, as does a changed rule of the same name and
     * shadow mode), by reason; for a rule in shadow mode, those it would have rejected. Empty when
     * no rule of that name is in force.
     */
    public Optional<RejectionCounts> rejections(String ruleName) {
        return limit(ruleName).map(Limit::rejections);
    }

    private Optional<Limit> limit(String ruleName) {
        return snapshot.get().book.limit(Objects.requireNonNull(ruleName, "ruleName"));
    }

    /**
     * How many clients the {@code per-origin} rule named {@code ruleName} evicted to make room for
     * new ones (see the README's "When more clients are active than max-origins"); a rule kept
     * through a reload keeps its count. Empty when no rule of that name is in force, or the rule
     * has another scope.
     */
    public OptionalLong evictions(String ruleName) {
        long evicted = limit(ruleName).map(Limit::evictions).orElse(-1L);
        return evicted < 0 ? OptionalLong.empty() : OptionalLong.of(evicted);
    }

    /** The reloading rules file, if one is configured. */
    public Optional<ReloadingRules> rulesFile() {
        return Optional.ofNullable(reloading);
    }

    /** Decides on a request with one permit. */
    public Decision enter(HttpRequestView request) {
        Objects.requireNonNull(request, "request");
        if (reloading != null) {
            reloading.maybeReload();
        }
        String decoded = request.decodedPath();
        String raw = decoded != null ? request.encodedPath() : request.rawPath();
        String key = decoded != null ? RequestPath.normalizeDecoded(decoded) : RequestPath.normalize(raw);
        // A dot-segment, plain or spelled with an escape, or an empty segment: resolved or dropped by
        // the container (and by normalize), but a segment to a framework that routes by the raw URI.
        // The rules of both readings apply.
        String routed = RequestPath.asRouted(raw);
        if (routed == null && decoded != null && raw != null) {
            // The adapter's raw reading of a path the container routed otherwise (a servlet's own
            // segment with path parameters, HttpRequestView.encodedPath): its rules apply too.
            routed = RequestPath.normalize(raw);
        }
        return decide(request.method(), key, routed == null || routed.equals(key) ? null : routed, null, request, 1);
    }

    /** Decides on a request given by its parts, with one permit; see {@link #enter(String, String, Origin, int)}. */
    public Decision enter(String method, String normalizedPath, Origin origin) {
        return enter(method, normalizedPath, origin, 1);
    }

    /**
     * Decides on a request given by its parts, for callers without an {@link HttpRequestView}: its
     * method, its path as {@link RequestPath#normalize} gives it, who is calling, and how much of
     * each limit it takes.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public Decision enter(String method, String normalizedPath, Origin origin, int permits) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(normalizedPath, "normalizedPath");
        Objects.requireNonNull(origin, "origin");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        if (reloading != null) {
            reloading.maybeReload();
        }
        return decide(method, normalizedPath, null, origin, null, permits);
    }

    /**
     * The origin is {@code known}, or else looked up from {@code request} when first needed; {@code
     * otherPath}, if not null, is a second reading of the path whose rules apply too.
     */
    private Decision decide(
            String method, String path, String otherPath, Origin known, HttpRequestView request, int permits) {
        Snapshot s = snapshot.get();
        RuleSet rules = s.book.rules();
        Origin origin = known;
        if (!rules.deny().isEmpty()) {
            origin = origin != null ? origin : originOf(request);
            if (rules.deny().contains(origin) || deniedAddress(rules.deny(), origin, request)) {
                denied.increment();
                return new DeniedRejection(origin);
            }
        }
        Limit[] candidates = s.index.match(method, path);
        if (otherPath != null) {
            candidates = union(candidates, s.index.match(method, otherPath));
        }
        if (candidates.length == 0) {
            return UnlimitedEntry.INSTANCE;
        }
        // The origin is looked up only now that a rule applies: a request no rule applies to passes
        // without reading its headers, and creates no state.
        origin = origin != null ? origin : originOf(request);
        if (!rules.exempt().isEmpty() && rules.exempt().contains(origin)) {
            exempt.increment();
            return UnlimitedEntry.INSTANCE;
        }
        return admission.decide(candidates, origin, permits);
    }

    /** The limits of {@code first}, then those of {@code second} that are not in {@code first}. */
    private static Limit[] union(Limit[] first, Limit[] second) {
        if (second.length == 0) {
            return first;
        }
        List<Limit> all = new ArrayList<>(first.length + second.length);
        all.addAll(List.of(first));
        for (Limit limit : second) {
            boolean known = false;
            for (Limit already : first) {
                known |= already == limit;
            }
            if (!known) {
                all.add(limit);
            }
        }
        return all.size() == first.length ? first : all.toArray(new Limit[0]);
    }

    /**
     * Whether the client's address is in a {@code deny} range although its origin is a header's
     * value or a principal: a denied network is refused whatever a client says it is.
     */
    private boolean deniedAddress(OriginList deny, Origin origin, HttpRequestView request) {
        if (origin.ip() != null || request == null || deny.ranges().isEmpty()) {
            return false;
        }
        return clientAddress(request).map(deny.ranges()::contains).orElse(false);
    }

    /**
     * Where the origins of requests come from ({@code origin}): an adapter that runs where no user
     * is authenticated yet must know whether the gate counts by {@link OriginSource.Kind#PRINCIPAL}.
     */
    public OriginSource origin() {
        return originSource;
    }

    /** The origin of a request, as configured: client IP, a header's value, or the principal. */
    public Origin originOf(HttpRequestView request) {
        switch (originSource.kind()) {
            case HEADER -> {
                List<String> values = request.headers(originSource.headerName());
                String value = values.isEmpty() ? null : values.get(0).strip();
                if (value != null && credentialsHeader) {
                    value = credentials(value);
                }
                if (value != null && !value.isEmpty()) {
                    return originSource.valuesShown() ? Origin.id(value) : Origin.secret(value);
                }
            }
            case PRINCIPAL -> {
                String principal = request.principal();
                if (principal != null && !principal.isEmpty()) {
                    return Origin.id(principal);
                }
            }
            case IP -> {}
        }
        // The IP: the configured source, and the fallback for a request without header or principal.
        return clientAddress(request).map(ip -> Origin.ip(ip, clientIp)).orElse(Origin.unknown());
    }

    /**
     * Credentials as one spelling: {@code Bearer abc}, {@code bearer abc} and {@code BEARER  abc}
     * are one client. The scheme of {@code Authorization} is case-insensitive (RFC 9110 section
     * 11.1), and servers accept any case of it (Spring Security's bearer-token resolver does) and
     * blanks after it: as written, each spelling of one token was a client of its own, 64 for
     * {@code Bearer}. The credentials themselves are compared as sent, but for {@code Basic}, whose
     * Base64 servers decode without its padding and ignoring the bits after the last byte: they
     * are compared as the bytes they decode to.
     */
    static String credentials(String value) {
        int blank = 0;
        while (blank < value.length() && value.charAt(blank) != ' ' && value.charAt(blank) != '\t') {
            blank++;
        }
        if (blank == value.length()) {
            return value; // a scheme alone, or credentials without one
        }
        int rest = blank;
        while (rest < value.length() && (value.charAt(rest) == ' ' || value.charAt(rest) == '\t')) {
            rest++;
        }
        StringBuilder one = new StringBuilder(value.length());
        for (int i = 0; i < blank; i++) {
            char c = value.charAt(i);
            one.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        String credentials = value.substring(rest);
        if (one.toString().equals("basic")) {
            // Base64 as servers decode it (Spring Security with java.util.Base64): without its
            // padding, or with other bits after the last byte, it is the same user and password.
            try {
                credentials =
                        Base64.getEncoder().encodeToString(Base64.getDecoder().decode(credentials));
            } catch (IllegalArgumentException notBase64) {
                // compared as sent: no server takes it for a user and a password either
            }
        }
        return one.append(' ').append(credentials).toString();
    }

    /** The client's IP address: the peer's, or, through trusted proxies, what they forwarded. */
    private Optional<IpAddress> clientAddress(HttpRequestView request) {
        // Without trusted proxies the peer is the client, and no forwarding header is worth reading.
        boolean proxied = !clientIp.trustedProxies().isEmpty();
        return clientIp.resolve(
                request.remoteAddr(),
                proxied ? request.headers("Forwarded") : List.of(),
                proxied ? request.headers("X-Forwarded-For") : List.of());
    }

    /**
     * Whether {@link #admittedHeaders} may pass fields for {@code decision}; false when it surely
     * passes none: {@code rate-limit-headers} is {@code rejected} or {@code none} (a setting of the
     * gate, which a reload of the rules does not change), or no rule limits the request (none
     * matched it, or its origin is exempt). For an adapter that prepares something to receive the
     * fields, such as the servlet filter's response wrapper that combines them with the
     * application's own: it need not when this is false. True does not promise fields (a shadow
     * rule shows none).
     */
    public boolean mayWriteAdmittedHeaders(Decision decision) {
        return response.headers() == RateLimitHeaders.ALL && decision != UnlimitedEntry.INSTANCE;
    }

    /**
     * Passes the rate-limit header fields for an admitted request to {@code header}: {@code
     * RateLimit-Policy} and {@code RateLimit} when configured to send them on every response and a
     * rule applied; nothing otherwise. These are Leapgate's values alone: an adapter sets each field
     * to {@link RateLimitFields#combine} of the application's value of it (if any) and this one.
     */
    public void admittedHeaders(Decision decision, BiConsumer<String, String> header) {
        if (response.headers() != RateLimitHeaders.ALL) {
            return;
        }
        if (decision instanceof AdmittedEntry entry && writeFields(entry, header)) {
            return;
        }
        List<Quota> quotas = decision.quotas();
        if (!quotas.isEmpty()) {
            header.accept(RateLimitFields.RATE_LIMIT_POLICY, RateLimitFields.policy(quotas));
            header.accept(RateLimitFields.RATE_LIMIT, RateLimitFields.rateLimit(quotas));
        }
    }

    /**
     * The rate-limit fields of an admitted entry from its limits' tickets, without quota objects:
     * the rules tightest first (fewest remaining), each rule's policy item as prepared; shadow
     * rules, and shared rules that let the request pass because the store could not decide ({@code
     * store-on-failure = open}), limit nothing and are not shown. False if a limit is no longer in force (a reload
     * replaced it since the admission): the caller then goes the general way.
     */
    private boolean writeFields(AdmittedEntry entry, BiConsumer<String, String> header) {
        Map<Limit, Policy> policies = snapshot.get().policies;
        int n = entry.limitCount();
        long now = entry.startNanos(); // as of the admission, after any wait: see AdmittedEntry.quotas
        if (n <= 2) {
            return writeFewFields(policies, entry, n, now, header);
        }
        long[] remaining = new long[n];
        int[] order = new int[n];
        int shown = 0;
        for (int i = 0; i < n; i++) {
            if (!policies.containsKey(entry.limit(i))) {
                return false;
            }
            if (!entry.shown(i)) {
                continue;
            }
            remaining[i] = entry.remaining(i);
            // Insertion sort by remaining, stable: lists are short.
            int j = shown++;
            while (j > 0 && remaining[order[j - 1]] > remaining[i]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        if (shown == 0) {
            return true;
        }
        StringBuilder rateLimit = new StringBuilder(32 * shown);
        for (int k = 0; k < shown; k++) {
            if (k > 0) {
                rateLimit.append(", ");
            }
            int i = order[k];
            RateLimitFields.appendRateLimit(
                    rateLimit, entry.limit(i).rule().name(), remaining[i], resetNanos(entry, i, now));
        }
        header.accept(RateLimitFields.RATE_LIMIT_POLICY, joinedPolicy(policies, entry, order, shown));
        header.accept(RateLimitFields.RATE_LIMIT, rateLimit.toString());
        return true;
    }

    /**
     * {@link #writeFields} for one limit or two (a route's usual per-client and global limits):
     * each field one string built at once, without arrays or builders.
     */
    private static boolean writeFewFields(
            Map<Limit, Policy> policies, AdmittedEntry entry, int n, long now, BiConsumer<String, String> header) {
        Policy p0 = policies.get(entry.limit(0));
        Policy p1 = n == 2 ? policies.get(entry.limit(1)) : null;
        if (p0 == null || (n == 2 && p1 == null)) {
            return false;
        }
        boolean show0 = entry.shown(0);
        boolean show1 = n == 2 && entry.shown(1);
        if (show0 && show1) {
            long r0 = entry.remaining(0);
            long r1 = entry.remaining(1);
            int first = r1 < r0 ? 1 : 0; // the tightest first; in the entry's order when equal
            int second = 1 - first;
            Policy firstPolicy = first == 0 ? p0 : p1;
            Policy secondPolicy = first == 0 ? p1 : p0;
            header.accept(
                    RateLimitFields.RATE_LIMIT_POLICY,
                    joinedPolicy(entry.limit(first), firstPolicy, entry.limit(second), secondPolicy));
            header.accept(
                    RateLimitFields.RATE_LIMIT,
                    RateLimitFields.rateLimit(
                            firstPolicy.rateLimitPrefix,
                            Math.min(r0, r1),
                            resetNanos(entry, first, now),
                            secondPolicy.rateLimitPrefix,
                            Math.max(r0, r1),
                            resetNanos(entry, second, now)));
        } else if (show0 || show1) {
            int i = show0 ? 0 : 1;
            Policy policy = show0 ? p0 : p1;
            header.accept(RateLimitFields.RATE_LIMIT_POLICY, policy.item);
            header.accept(
                    RateLimitFields.RATE_LIMIT,
                    RateLimitFields.rateLimit(policy.rateLimitPrefix, entry.remaining(i), resetNanos(entry, i, now)));
        }
        return true;
    }

    /** The {@code RateLimit-Policy} list of two limits, {@code first} then {@code second}. */
    private static String joinedPolicy(Limit first, Policy firstPolicy, Limit second, Policy secondPolicy) {
        Joined last = firstPolicy.joined;
        if (last != null && last.limits.length == 2 && last.limits[1] == second) {
            return last.value;
        }
        Joined joined = new Joined(new Limit[] {first, second}, firstPolicy.item + ", " + secondPolicy.item);
        firstPolicy.joined = joined;
        return joined.value;
    }

    /** Nanoseconds until the entry's limit {@code i} is whole again; -1 for an in-flight limit. */
    private static long resetNanos(AdmittedEntry entry, int i, long now) {
        Limit limit = entry.limit(i);
        return limit.rule().isInFlight() ? -1 : limit.resetNanos(now, entry.origin(), entry.token(i));
    }

    /** The {@code RateLimit-Policy} list of the entry's limits {@code order[0, shown)}, in that order. */
    private static String joinedPolicy(Map<Limit, Policy> policies, AdmittedEntry entry, int[] order, int shown) {
        Policy head = policies.get(entry.limit(order[0]));
        Joined last = head.joined;
        if (last != null && last.limits.length == shown) {
            int k = 1;
            while (k < shown && last.limits[k] == entry.limit(order[k])) {
                k++;
            }
            if (k == shown) {
                return last.value;
            }
        }
        Limit[] limits = new Limit[shown];
        StringBuilder value = new StringBuilder(40 * shown);
        for (int k = 0; k < shown; k++) {
            limits[k] = entry.limit(order[k]);
            value.append(k > 0 ? ", " : "").append(policies.get(limits[k]).item);
        }
        Joined joined = new Joined(limits, value.toString());
        head.joined = joined;
        return joined.value;
    }

    /** No body: empty, so that no answer can change it for another. */
    private static final byte[] NO_BODY = new byte[0];

    /** The header field that keeps a rejection out of every cache. */
    private static final HeaderFields NOT_STORED = new HeaderFields(RateLimitFields.CACHE_CONTROL, "no-store");

    /**
     * The body of the last rejection answered ({@link #rejection}) but for its retry time: a client
     * over a limit is rejected again and again by the same rule. One field for every rule, and
     * replaced when another rule rejects; null until the first.
     */
    private volatile ProblemBody.Template lastBody;

    /**
     * The complete response for a rejection: status, header fields, body. A request over a limit
     * gets the configured {@code status} (429), {@code Retry-After} and the rate-limit fields (a
     * request for more permits than the limit, which no wait admits, no {@code Retry-After}); a
     * request a shared rule's store could not decide, under {@code store-on-failure = closed}, gets
     * {@code 503} and {@code Retry-After} alone; a request from a denied origin gets {@code
     * deny-status} (403) and nothing that tells it to retry.
     * Both say {@code Cache-Control: no-store}: they answer one client, and a shared cache must not
     * serve them to others (a {@code 404} or {@code 410} is cacheable by default: a proxy would
     * answer every client with one denied client's {@code deny-status = 404}).
     */
    public RejectionResponse rejection(Rejection rejection) {
        if (rejection instanceof DeniedRejection) {
            int status = response.denyStatus();
            return response.problemBody()
                    ? new RejectionResponse(status, NOT_STORED, ProblemBody.CONTENT_TYPE, deniedBody.clone())
                    : new RejectionResponse(status, NOT_STORED, null, NO_BODY);
        }
        if (Admission.storeUnavailable(rejection)) {
            return storeUnavailable(rejection);
        }
        int status = response.status();
        if (Admission.admitsNoRetry(rejection)) {
            // No wait admits it: no Retry-After, nor a retry time in the body; what the rule has
            // left is still true.
            HeaderFields headers = rejectionFields(null, rejection.quotas());
            return response.problemBody()
                    ? new RejectionResponse(
                            status,
                            headers,
                            ProblemBody.CONTENT_TYPE,
                            ProblemBody.withoutRetry(rejection.rule(), rejection.reason(), status)
                                    .getBytes(StandardCharsets.UTF_8))
                    : new RejectionResponse(status, headers, null, NO_BODY);
        }
        Duration retry = rejection.retryAfter();
        long retryAfter = RateLimitFields.retryAfterSeconds(retry); // once: the body says the same
        HeaderFields headers = rejectionFields(Long.toString(retryAfter), notPastTheRetry(rejection.quotas(), retry));
        if (!response.problemBody()) {
            return new RejectionResponse(status, headers, null, NO_BODY);
        }
        ProblemBody.Template body = lastBody;
        if (body == null || !body.isFor(rejection.rule(), rejection.reason(), status)) {
            body = ProblemBody.template(rejection.rule(), rejection.reason(), status);
            lastBody = body;
        }
        return new RejectionResponse(status, headers, ProblemBody.CONTENT_TYPE, body.bytes(retryAfter));
    }

    /**
     * The answer to a request rejected because a shared rule's store could not decide ({@code
     * store-on-failure = closed}): {@code 503}, whatever the configured {@code status}, since the
     * client did not send too many requests and nothing was counted; {@code Retry-After} the time
     * until the store is asked again (see {@link Rejection#retryAfter}); no rate-limit fields, of
     * that rule (it could not tell what remains) nor of the others (a client reads a list without
     * the rule that rejected as a quota it may spend).
     */
    private RejectionResponse storeUnavailable(Rejection rejection) {
        long retryAfter = RateLimitFields.retryAfterSeconds(rejection.retryAfter());
        HeaderFields headers = rejectionFields(Long.toString(retryAfter), List.of());
        if (!response.problemBody()) {
            return new RejectionResponse(STORE_UNAVAILABLE_STATUS, headers, null, NO_BODY);
        }
        return new RejectionResponse(
                STORE_UNAVAILABLE_STATUS,
                headers,
                ProblemBody.CONTENT_TYPE,
                ProblemBody.template(rejection.rule(), rejection.reason(), STORE_UNAVAILABLE_STATUS)
                        .bytes(retryAfter));
    }

    /**
     * A rejection's header fields: {@code Retry-After} (none for {@code null}), the rate-limit
     * fields of {@code quotas} (none when they are off or there are no quotas), and {@code
     * Cache-Control: no-store}.
     */
    private HeaderFields rejectionFields(String retryAfter, List<Quota> quotas) {
        boolean limits = response.headers() != RateLimitHeaders.NONE && !quotas.isEmpty();
        if (retryAfter == null && !limits) {
            return NOT_STORED;
        }
        String[] fields = new String[(retryAfter == null ? 0 : 2) + (limits ? 4 : 0) + 2];
        int i = 0;
        if (retryAfter != null) {
            fields[i++] = RateLimitFields.RETRY_AFTER;
            fields[i++] = retryAfter;
        }
        if (limits) {
            fields[i++] = RateLimitFields.RATE_LIMIT_POLICY;
            fields[i++] = RateLimitFields.policy(quotas);
            fields[i++] = RateLimitFields.RATE_LIMIT;
            fields[i++] = RateLimitFields.rateLimit(quotas);
        }
        fields[i++] = RateLimitFields.CACHE_CONTROL;
        fields[i] = "no-store";
        return new HeaderFields(fields);
    }

    /** Service Unavailable: the status of a rejection because a shared rule's store could not decide. */
    private static final int STORE_UNAVAILABLE_STATUS = 503;

    /**
     * The quotas of a rejection with no {@code t} past its {@code Retry-After}: the draft
     * (section 6) has {@code Retry-After} not reference a time before the end of the effective
     * window, and a retry then is admitted, so {@code r=0} holds no longer than that. A window's
     * reset is when it is whole again, which may be later than when one request fits. A retry
     * time of zero (none known: a slot, or permits no wait admits) caps nothing.
     */
    private static List<Quota> notPastTheRetry(List<Quota> quotas, Duration cap) {
        if (cap.isZero() || cap.isNegative()) {
            return quotas;
        }
        List<Quota> capped = null;
        for (int i = 0; i < quotas.size(); i++) {
            Quota q = quotas.get(i);
            if (!q.isInFlight() && q.reset().compareTo(cap) > 0) {
                if (capped == null) {
                    capped = new ArrayList<>(quotas);
                }
                capped.set(i, new Quota(q.rule(), q.limit(), q.window(), q.remaining(), cap));
            }
        }
        return capped == null ? quotas : capped;
    }

    /** Builds an {@link HttpGate}. */
    public static final class Builder {
        private final LeapgateConfig config;
        private Clock clock = Clock.system();
        private boolean clockSet;
        private Sleeper sleeper = Sleeper.system();
        private boolean sleeperSet;
        private final List<FlowRule> codeRules = new ArrayList<>();
        private final List<Function<RuleSet, List<String>>> checks = new ArrayList<>();
        private Consumer<String> rejectionLines = REJECTIONS::info;
        private WindowStore windowStore;

        private Builder(LeapgateConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /**
         * The clock; {@link Clock#system()} by default. Tests and demos pass a {@code ManualClock}.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder clock(Clock clock) {
            Objects.requireNonNull(clock, "clock");
            if (clockSet) {
                throw new IllegalStateException("clock was already set to " + this.clock);
            }
            this.clock = clock;
            this.clockSet = true;
            return this;
        }

        /**
         * How paced and borrowing requests wait; {@link Sleeper#system()} by default.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder sleeper(Sleeper sleeper) {
            Objects.requireNonNull(sleeper, "sleeper");
            if (sleeperSet) {
                throw new IllegalStateException("sleeper was already set to " + this.sleeper);
            }
            this.sleeper = sleeper;
            this.sleeperSet = true;
            return this;
        }

        /**
         * Adds rules defined in code (an adapter's annotations), enforced after the configuration's
         * rules. A reloaded rules file replaces only its own rules; these stay.
         */
        public Builder addRules(Collection<FlowRule> rules) {
            for (FlowRule rule : Objects.requireNonNull(rules, "rules")) {
                codeRules.add(Objects.requireNonNull(rule, "rule"));
            }
            return this;
        }

        /**
         * Adds a check that the gate runs on its rules when it starts and at every reload: what the
         * check returns is logged at WARN and available from {@link HttpGate#warnings()}. For
         * adapters that know the application ({@link RuleChecks}).
         */
        public Builder check(Function<RuleSet, List<String>> check) {
            checks.add(Objects.requireNonNull(check, "check"));
            return this;
        }

        /**
         * The store of the shared windows, instead of the one the configuration's {@code store}
         * names being opened: for tests, and for applications that build their store themselves.
         * Used only with a configured {@code store} (whose settings still apply); the caller closes it.
         *
         * @throws IllegalStateException if it was already set
         */
        public Builder windowStore(WindowStore store) {
            Objects.requireNonNull(store, "store");
            if (windowStore != null) {
                throw new IllegalStateException("window store was already set to " + windowStore);
            }
            this.windowStore = store;
            return this;
        }

        /** Where the rejection log's lines go: logger {@code dev.leapgate.rejections} at INFO; tests collect them. */
        Builder rejectionLines(Consumer<String> lines) {
            this.rejectionLines = Objects.requireNonNull(lines, "lines");
            return this;
        }

        /**
         * @throws dev.leapgate.config.ConfigException if the rules file cannot be read or is invalid
         * @throws IllegalArgumentException if a rule added in code has the name of a configured rule
         */
        public HttpGate build() {
            return new HttpGate(this);
        }
    }
}

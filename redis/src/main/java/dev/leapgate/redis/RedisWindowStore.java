package dev.leapgate.redis;

import dev.leapgate.redis.RedisErrors.Full;
import dev.leapgate.redis.RedisErrors.Misconfigured;
import dev.leapgate.store.SharedWindow;
import dev.leapgate.store.StoreSettings;
import dev.leapgate.store.Verdict;
import dev.leapgate.store.WindowStore;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * Leapgate's windows in Redis, shared by every instance that uses the same Redis and key prefix.
 *
 * <h2>One decision, one script</h2>
 *
 * A decision is one {@code EVALSHA} of {@code window.lua} (sent again as {@code EVAL} when Redis
 * answers {@code NOSCRIPT}, after a restart or a {@code SCRIPT FLUSH}): on Redis's own clock
 * ({@code TIME}, in microseconds) it drops the buckets that left the window, sums the rest, and
 * counts the permits if they fit, in one atomic step (3 Redis commands: {@code TIME}, {@code GET},
 * {@code SET ... PX} or {@code KEEPTTL}). A window is one short string: its newest bucket's number
 * (hexadecimal), the counts of the buckets it counts, newest first, and the sum of the older ones
 * ({@code 39207da;3,0,1|1}; an admission in the current bucket rewrites the first count alone),
 * with a TTL of the window and a bucket or two, set by the first admission in each new bucket (the
 * others keep it, {@code KEEPTTL}), so that idle clients vanish. Keys are {@code
 * <prefix>:{o:<client>}:<rule>:<bucket ms>x<span>} for a per-client window and {@code
 * <prefix>:{r:<rule>}:...} for a rule that counts everyone together: the braces are a Redis
 * Cluster hash tag, so all of one client's windows are in one slot.
 *
 * <h2>Coalescing</h2>
 *
 * A decision is sent at once while fewer than {@link #CALLS_PER_KEY} calls for its key are in
 * flight; after that, the decisions for the key that arrive go together in the next call that
 * comes back, which the script decides one after the other at one instant, exactly as if they
 * had come one by one: a hot key costs at most {@link #CALLS_PER_KEY} calls per round trip,
 * however many requests ask at once, and a few concurrent requests for one key never wait for
 * each other's round trip.
 *
 * <h2>When Redis is slow or down</h2>
 *
 * One multiplexed Lettuce connection, which does not queue commands while it is disconnected
 * (they fail at once) and reconnects by itself. Until the store's first connection is made,
 * decisions wait for it (within their budget), and only those still waited for are sent. Core
 * waits for each decision no longer than the time budget ({@code store-timeout}) and then
 * cancels it; a circuit breaker (Resilience4j) counts
 * failures and decisions cancelled when their budget ran out (not those cancelled sooner because
 * another rule rejected the request), and once
 * half of the last 20 decisions failed it stops calling Redis for a second, then lets two probes
 * through and closes when they succeed. Its opening and its closing are logged (WARN), the
 * probing in between at DEBUG. What the
 * rule does meanwhile is core's failure policy ({@code store-on-failure}). A decision Redis makes
 * after its caller stopped waiting (Redis paused, then resumed) is not lost: if it admitted, its
 * permits are given back (replies are awaited for 10 s beyond the budget; one later, or lost with
 * a dropped connection, stays counted: the strict side).
 *
 * <p>Some failures are not an outage but a store that is set up wrong, and no retry mends them: a
 * password Redis refuses or that it needs and the URI lacks ({@code WRONGPASS}, {@code NOAUTH}), a
 * user without a command or key the store needs ({@code NOPERM}), a {@code redis://} URI that
 * names a read-only replica ({@code READONLY}), a Sentinel (which does not know the script's
 * commands: {@code ERR unknown command}) or one node of a Redis Cluster ({@code MOVED} for the
 * keys of other nodes' slots, which fails those keys' decisions alone), a database number Redis does not have, a Redis whose clock reads a time before 2025 (the
 * script refuses to decide), a key of another type under the key prefix ({@code WRONGTYPE}: another
 * application's, which fails the decisions on that key alone), a server that answers the script
 * otherwise than Redis does (numbers as strings: a "Redis-compatible" server). Each kind is logged once at ERROR, naming the
 * {@code store} setting and its value, and decisions fail with that message (core's failure policy
 * shows it), instead of Lettuce's "Unable to connect", which reads like a Redis that is down; so
 * is a password refused when Lettuce reconnects (Redis restarted with one), instead of "not
 * connected".
 *
 * <p>A full Redis ({@code maxmemory} reached, {@code maxmemory-policy noeviction}) is neither: it
 * refuses the script at its first write (an admission, a refund) and answers the rest (a
 * rejection), and room comes back as keys expire. Its refusal fails the decision with a message
 * that says so ({@link Full}), and counts neither way for the circuit breaker.
 *
 * <h2>Instances</h2>
 *
 * With {@code store-instances = auto} each instance writes a heartbeat into the sorted set {@code
 * <prefix>:instances} every 2 s, on Redis's clock (entries older than 10 s are dropped, and the key has a TTL), and
 * {@link #instances()} is the number of instances seen: what a local share divides the limit by.
 */
public final class RedisWindowStore implements WindowStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisWindowStore.class);

    static final String SCRIPT = script("window.lua");
    static final String INSTANCES_SCRIPT = script("instances.lua");

    private static final Duration HEARTBEAT = Duration.ofSeconds(2);
    /** How long a reply that came too late for its decision is still waited for, to give back what it admitted. */
    private static final Duration LATE_REPLIES = Duration.ofSeconds(10);

    private static final Duration INSTANCE_EXPIRY = Duration.ofSeconds(10);
    /**
     * How long {@link #open} waits for the connection and the script load, so that the first
     * decisions are Redis's; it returns sooner when they fail (Redis down: the failure policy
     * decides until Redis is reached).
     */
    static final Duration START_WAIT = Duration.ofSeconds(2);
    /** The shortest time between two attempts to connect while Redis has never been reached. */
    private static final long RECONNECT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * How long an open connection may go without any reply, while decisions on it time out, before
     * a second connection is tried against it ({@link #unanswered}); and the fewest such decisions.
     */
    static final Duration STALL = Duration.ofSeconds(2);

    private static final int STALL_TIMEOUTS = 5;
    /** How often a Redis Cluster's topology is read again besides when Lettuce sees it changed. */
    private static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(30);
    /**
     * The longest wait between two of Lettuce's attempts to reconnect a connection it lost. Its
     * default doubles up to 30 s: after a long outage the store went on with its failure policy for
     * up to 30 s after Redis answered again (19 s measured after 45 s down).
     */
    static final Duration RECONNECT_DELAY_CAP = Duration.ofMillis(500);

    private final AbstractRedisClient client;
    private final StoreSettings settings;
    private final String prefix;
    /** The time budget of one decision ({@code store-timeout}), in ns. */
    private final long budgetNanos;

    private final CircuitBreaker breaker;
    /** Logs the breaker's opening and closing, seen after each permission and each outcome. */
    private final BreakerStateLog breakerLog;

    private final String instanceId = UUID.randomUUID().toString();
    private final AtomicReference<Connecting> connection = new AtomicReference<>();
    private volatile String sha;
    private volatile int instances = 1;
    private volatile boolean closed;
    /** When Redis last replied to anything on the connection (a late reply too), by System.nanoTime(). */
    private volatile long lastReplyNanos = System.nanoTime();
    /** Decisions whose time ran out since the last reply. */
    private final AtomicInteger unansweredInARow = new AtomicInteger();
    /** When the first of those ran out. */
    private volatile long unansweredSinceNanos;
    /** Whether a second connection is being tried against a connection that does not reply. */
    private final AtomicBoolean probing = new AtomicBoolean();
    /** When a stalled connection was last replaced and said so at WARN; 0 for never. */
    private volatile long stallLoggedNanos;

    private final java.util.concurrent.ScheduledFuture<?> heartbeat;
    /** What Redis's refusals mean ({@link #classified}). */
    private final RedisErrors errors;
    /**
     * The configuration error that Lettuce's latest attempt to reconnect failed with (a password
     * Redis now requires, after a restart): what decisions fail with while it reconnects, instead
     * of "not connected". Null when that attempt failed otherwise, or once connected.
     */
    private volatile Misconfigured reconnectRefused;
    /** The subscription to the client's connection events ({@link #connectionEvent}). */
    private final Disposable connectionEvents;
    /** The first connection made and the script loaded (or either failed): what {@link #open} waits for. */
    private final CompletableFuture<Void> started;

    /** A connection being made, made, or failed (then retried after a pause). */
    private record Connecting(CompletableFuture<StatefulConnection<String, String>> future, long startedNanos) {}

    private RedisWindowStore(AbstractRedisClient client, StoreSettings settings) {
        this.client = client;
        this.settings = settings;
        this.prefix = settings.keyPrefix() + ":";
        this.errors = new RedisErrors(settings, prefix, prefix + START_KEY);
        this.budgetNanos = settings.timeout().toNanos();
        this.breaker = CircuitBreaker.of(
                "leapgate-redis",
                CircuitBreakerConfig.custom()
                        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                        .slidingWindowSize(20)
                        .minimumNumberOfCalls(10)
                        .failureRateThreshold(50)
                        .waitDurationInOpenState(Duration.ofSeconds(1))
                        .permittedNumberOfCallsInHalfOpenState(2)
                        .recordExceptions(Throwable.class)
                        .build());
        this.breakerLog = new BreakerStateLog(breaker::getState, settings.shownUri());
        this.connectionEvents = client.getResources().eventBus().get().subscribe(this::connectionEvent);
        this.started = connect();
        this.heartbeat = settings.instances() == 0
                ? client.getResources()
                        .eventExecutorGroup()
                        .scheduleAtFixedRate(this::beat, 0, HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS)
                : null;
    }

    /**
     * Opens a store, and waits up to {@link #START_WAIT} for the connection, the script load and one
     * decision that writes nothing, so that the first decisions after a start are Redis's, not the
     * failure policy's while the client connects and the decisions' code loads. Redis need not be
     * reachable: when it refuses the connection (down, or a wrong password) the store returns at
     * once, and the failure policy decides until Redis is reached. A Redis not reached at the start
     * is logged then, once, at WARN (a store set up wrong, at ERROR, as what it is).
     *
     * @throws IllegalArgumentException if the URI is not one Lettuce can use
     */
    public static RedisWindowStore open(StoreSettings settings) {
        URI uri = settings.uri();
        String scheme = uri.getScheme();
        RedisUris.check(uri, scheme);
        // Lettuce's own timeout is long: the time budget is the caller's (core's), and a reply
        // that comes after it must still arrive, so that what Redis admitted for nobody goes back.
        Duration timeout = settings.timeout().plus(LATE_REPLIES);
        if (scheme.endsWith("-cluster")) {
            List<RedisURI> seeds = RedisUris.seeds(uri, scheme.substring(0, scheme.length() - "-cluster".length()));
            RedisClusterClient cluster = RedisClusterClient.create(resources(), seeds);
            cluster.setOptions(ClusterClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(timeout))
                    // Follows a failover (a replica promoted, slots moved): Lettuce 7 refreshes the
                    // topology on every adaptive trigger by default, but 6.6 (Spring Boot 3.5's) on
                    // none, and kept sending a dead master's slots to it for as long as it ran.
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                            .build())
                    .build());
            return new RedisWindowStore(cluster, settings).awaitStart();
        }
        RedisURI redisUri = RedisUris.redisUri(uri.toString());
        RedisClient single = RedisClient.create(resources(), redisUri);
        single.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        return new RedisWindowStore(single, settings).awaitStart();
    }

    /**
     * The client's resources (its threads), the store's own as a client's by default are, but
     * with reconnection attempts at most {@link #RECONNECT_DELAY_CAP} apart; shut down by {@link #close}.
     */
    private static ClientResources resources() {
        return ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(1), RECONNECT_DELAY_CAP, 2, TimeUnit.MILLISECONDS))
                .build();
    }

    /** The wait before Lettuce's {@code attempt}th attempt (from 1) to reconnect a lost connection. */
    Duration reconnectDelay(long attempt) {
        return client.getResources().reconnectDelay().createDelay(attempt);
    }

    /** The window of the decision {@link #awaitStart} makes (2 permits), which Redis rejects and writes nothing for. */
    private static final SharedWindow START_DECISION = new SharedWindow("start", 1_000_000, 1, 1);

    /** Its key, after the prefix. */
    private static final String START_KEY = "start";

    /**
     * This store once connected with the script loaded and one decision made, or after {@link
     * #START_WAIT}, or once either failed.
     */
    private RedisWindowStore awaitStart() {
        try {
            long deadline = System.nanoTime() + START_WAIT.toNanos();
            started.get(START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            CompletableFuture<StatefulConnection<String, String>> c = connection();
            // Null once connected; a failed connection's stage completes a moment after `started`.
            Throwable failure =
                    c.handle((connected, t) -> t).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (failure == null) {
                // One decision on the decisions' own path, so that its code is loaded before the
                // first decision: at a start, 1 to 4 of a gate's first 8 decisions overran the
                // default 50 ms budget; with a no-op sent straight on the connection instead, the
                // first still took 34 ms (median; 25.5 ms with this, BENCHMARKS.md). 2 permits
                // against a limit of 1: rejected, so nothing is written.
                tryAcquire(START_DECISION, START_KEY, 2)
                        .toCompletableFuture()
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } else {
                failure = failure instanceof CompletionException ? failure.getCause() : failure;
                // A store set up wrong was logged (at ERROR) as what it is.
                if (!(classified(failure) instanceof Misconfigured)) {
                    unreachedAtStart("cannot connect (" + oneLine(messageWithRootCause(failure)) + ")");
                }
            }
        } catch (TimeoutException e) {
            unreachedAtStart("no answer within " + START_WAIT.toSeconds() + " s");
        } catch (ExecutionException e) {
            // The start's decision refused, not the connection: each decision says what it meets.
        } catch (RuntimeException e) {
            // Not thrown by anything known; the store is made, and decides, all the same.
            LOG.debug("Leapgate Redis store {}: the start's decision failed", settings.shownUri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return this;
    }

    /**
     * Says once, at the start, that Redis was not reached: otherwise a gate that serves no request
     * yet would say nothing (each rule logs its switch to its failure policy at its first decision),
     * and its rules' statuses would read as available.
     */
    private void unreachedAtStart(String why) {
        LOG.warn(
                "Leapgate Redis store {}: {} at the start; until Redis answers, each shared rule is decided by"
                        + " its store-on-failure",
                settings.shownUri(),
                why);
    }

    /** A URI's user information, to its last '@' (a password's '/', ',' and brackets are escaped in a URI). */
    private static final Pattern USER_INFO = Pattern.compile("(?i)([a-z][a-z0-9+.-]*://)[^\\s/\\[\\],]*@");

    /**
     * {@code text} for a log line: on one line (Lettuce writes a cluster's failure with a line for
     * each seed node), and the user information of any URI in it masked.
     */
    static String oneLine(String text) {
        return USER_INFO
                .matcher(text)
                .replaceAll("$1***@")
                .replaceAll("\\s+", " ")
                .strip();
    }

    /** A failure's message, and its root cause's if it has one ("Unable to connect to ...: Connection refused: ..."). */
    private static String messageWithRootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure || root.getMessage() == null
                ? String.valueOf(failure.getMessage())
                : failure.getMessage() + ": " + root.getMessage();
    }

    /** Whether the start {@link #open} waits for is over: connected with the script loaded, or failed. */
    boolean startSettled() {
        return started.isDone();
    }

    /** Redis replied on the connection (to a decision, late or not, or to anything else). */
    private void replied() {
        lastReplyNanos = System.nanoTime();
        unansweredInARow.set(0);
    }

    /**
     * A decision's time ran out. A connection whose peer vanished without closing it (a host that
     * lost power, a network partition, a managed Redis's failover that moved its address) stays
     * open: every command on it waits, and Lettuce, which reconnects a connection that closes,
     * never does, until the kernel gives up retransmitting (about 15 minutes), while Sentinel had
     * named a new master within seconds. So when no reply came for {@link #STALL} since the first
     * of at least {@link #STALL_TIMEOUTS} decisions that ran out of time, a second connection is
     * tried: if it answers a script while the first still has not replied, it replaces the
     * first, which is closed. A Redis that is only slow replies late, and one that is paused or
     * busy answers neither connection: both keep their connection, whose late replies give back
     * what they admitted for nobody.
     */
    private void unanswered() {
        long now = System.nanoTime();
        if (unansweredInARow.incrementAndGet() == 1) {
            unansweredSinceNanos = now;
        }
        long since = Math.max(unansweredSinceNanos, lastReplyNanos);
        if (unansweredInARow.get() < STALL_TIMEOUTS || now - since < STALL.toNanos()) {
            return;
        }
        Connecting current = connection.get();
        if (!current.future.isDone() || current.future.isCompletedExceptionally() || closed) {
            return; // being made, or failed (connection() tries again)
        }
        if (!probing.compareAndSet(false, true)) {
            return;
        }
        long repliedBefore = lastReplyNanos;
        newConnection().whenComplete((fresh, notMade) -> {
            if (notMade != null) {
                probing.set(false);
                return;
            }
            // A script, not a PING: Redis paused for writes (CLIENT PAUSE WRITE, as its FAILOVER
            // does) answers a PING but holds scripts, as it holds the first connection's decisions.
            RedisWindowStore.<RedisScriptingAsyncCommands<String, String>>commands(fresh)
                    .<Long>eval("return 1", ScriptOutputType.INTEGER)
                    .whenComplete((pong, noPong) -> {
                        try {
                            boolean replace;
                            synchronized (connection) {
                                replace = noPong == null
                                        && connection.get() == current
                                        && lastReplyNanos == repliedBefore
                                        && !closed;
                                if (replace) {
                                    connection.set(new Connecting(
                                            CompletableFuture.completedFuture(fresh), System.nanoTime()));
                                    replied(); // the new connection gets its own STALL
                                }
                            }
                            if (replace) {
                                current.future.thenAccept(StatefulConnection::closeAsync);
                                logStall(now);
                            } else {
                                // The first connection replied meanwhile, or another replaced it.
                                fresh.closeAsync();
                            }
                        } finally {
                            probing.set(false);
                        }
                    });
        });
    }

    private void logStall(long now) {
        String message = "Leapgate Redis store {}: no reply on the connection for " + STALL.toSeconds()
                + " s while decisions ran out of time, and a new connection answered at once; it replaced"
                + " the first";
        if (stallLoggedNanos == 0 || now - stallLoggedNanos > TimeUnit.MINUTES.toNanos(1)) {
            stallLoggedNanos = now;
            LOG.warn(message, settings.shownUri());
        } else {
            LOG.debug(message, settings.shownUri());
        }
    }

    /** The connection, or a failed stage if there is none now (a new attempt is started now and then). */
    private CompletableFuture<StatefulConnection<String, String>> connection() {
        Connecting current = connection.get();
        CompletableFuture<StatefulConnection<String, String>> future = current.future;
        if (future.isCompletedExceptionally() && System.nanoTime() - current.startedNanos > RECONNECT_NANOS) {
            synchronized (connection) {
                if (connection.get() == current) { // one new attempt, however many threads saw the old one fail
                    connect();
                }
            }
            future = connection.get().future;
        }
        return future;
    }

    /** Connects; the stage returned completes once the script is loaded, or either failed. */
    private CompletableFuture<Void> connect() {
        CompletableFuture<Void> loaded = new CompletableFuture<>();
        CompletableFuture<StatefulConnection<String, String>> future = newConnection();
        // Decisions wait for this stage, not for the connection: the script's SCRIPT LOAD is then
        // sent before any decision's EVALSHA on the connection, which keeps the order.
        CompletableFuture<StatefulConnection<String, String>> ready = future.whenComplete((c, failure) -> {
            if (failure != null) {
                classified(failure); // a refused password is logged as what it is
                LOG.debug("Leapgate Redis store {}: cannot connect", settings.shownUri(), failure);
                loaded.complete(null);
            } else if (closed) {
                c.closeAsync();
                loaded.complete(null);
            } else {
                // The script into Redis's cache now, not at the first decision: that one would wait
                // for an EVALSHA answered NOSCRIPT, then an EVAL. Best effort: a decision loads the
                // script anyway.
                RedisScriptingAsyncCommands<String, String> scripting = commands(c);
                scripting.scriptLoad(SCRIPT).whenComplete((digest, notLoaded) -> {
                    if (notLoaded == null) {
                        replied();
                    } else {
                        LOG.debug("Leapgate Redis store {}: script not loaded", settings.shownUri(), notLoaded);
                    }
                    loaded.complete(null);
                });
            }
        });
        connection.set(new Connecting(ready, System.nanoTime()));
        return loaded;
    }

    /** A new connection to the store's Redis, or Redis Cluster. */
    private CompletableFuture<StatefulConnection<String, String>> newConnection() {
        return triedAgainWhenCutShort(
                client instanceof RedisClusterClient cluster
                        ? () -> connectCluster(cluster)
                        : () -> ((RedisClient) client)
                                .connectAsync(
                                        StringCodec.UTF8,
                                        RedisUris.redisUri(settings.uri().toString()))
                                .thenApply(c -> (StatefulConnection<String, String>) c)
                                .toCompletableFuture(),
                CUT_SHORT_TRIES);
    }

    /**
     * A connection to a Redis Cluster: Lettuce's connectAsync needs the topology loaded first, which
     * connect() does, blocking: on a thread of its own (never one of Lettuce's, which the connection
     * itself needs).
     */
    private CompletableFuture<StatefulConnection<String, String>> connectCluster(RedisClusterClient cluster) {
        CompletableFuture<StatefulConnection<String, String>> connecting = new CompletableFuture<>();
        Thread connector = new Thread(
                () -> {
                    StatefulRedisClusterConnection<String, String> c;
                    try {
                        c = cluster.connect(StringCodec.UTF8);
                    } catch (RuntimeException e) {
                        connecting.completeExceptionally(e);
                        return;
                    }
                    // Connections to the nodes are made on first use, and a command to a node
                    // not yet connected is rejected (no queueing): connect to the masters, which
                    // serve every command, now. A master that cannot be reached fails the
                    // decisions of its slots only (each by its rule's failure policy), and is
                    // connected again on use; replicas are never asked.
                    for (RedisClusterNode node : c.getPartitions()) {
                        if (node.getRole() == null || !node.getRole().isUpstream()) {
                            continue;
                        }
                        try {
                            c.getConnection(
                                    node.getUri().getHost(), node.getUri().getPort());
                        } catch (RuntimeException e) {
                            LOG.debug(
                                    "Leapgate Redis store {}: cannot connect to {}",
                                    settings.shownUri(),
                                    node.getUri(),
                                    e);
                        }
                    }
                    connecting.complete(c);
                },
                "leapgate-redis-connect");
        connector.setDaemon(true);
        connector.start();
        return connecting;
    }

    /** How many times a connection is tried at once while its handshake is cut short ({@link #cutShort}). */
    static final int CUT_SHORT_TRIES = 3;

    /**
     * {@code attempt}'s connection, tried again at once, {@code tries} times in all, while it fails
     * {@link #cutShort}: Lettuce (7.7) closes the channel of a handshake Redis refused before it
     * reports the refusal, and in about 1 of 150 such handshakes (measured here against a wrong
     * password) the close wins and the refusal reads "Connection closed prematurely". A store set
     * up wrong was then reported as a Redis that cannot be reached, at the start and in each rule's
     * switch to its failure policy (the refusal itself only at the next attempt, 500 ms later).
     */
    static <T> CompletableFuture<T> triedAgainWhenCutShort(Supplier<CompletableFuture<T>> attempt, int tries) {
        return attempt.get()
                .handle((connected, failure) -> tries > 1 && cutShort(failure)
                        ? triedAgainWhenCutShort(attempt, tries - 1)
                        : failure == null
                                ? CompletableFuture.completedFuture(connected)
                                : CompletableFuture.<T>failedFuture(failure))
                .thenCompose(next -> next);
    }

    /** Whether {@code failure} is a handshake cut short: Lettuce's "Connection closed prematurely". */
    static boolean cutShort(Throwable failure) {
        return within(
                        failure,
                        t -> t instanceof RedisConnectionException
                                && "Connection closed prematurely".equals(t.getMessage()))
                != null;
    }

    /**
     * The first of {@code failure}, its causes and the failures suppressed in any of them that
     * {@code test} accepts (causes before suppressed ones), or null. Lettuce reports why no node of
     * a Redis Cluster answered as failures suppressed in the one it throws, one per node: a wrong
     * password is found there, or the cluster would be reported as unreachable.
     */
    static Throwable within(Throwable failure, Predicate<Throwable> test) {
        Deque<Throwable> next = new ArrayDeque<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        if (failure != null) {
            next.add(failure);
        }
        while (!next.isEmpty()) {
            Throwable t = next.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (test.test(t)) {
                return t;
            }
            if (t.getCause() != null) {
                next.add(t.getCause());
            }
            Collections.addAll(next, t.getSuppressed());
        }
        return null;
    }

    /**
     * Lettuce reconnects by itself after a connection is lost; an attempt refused for a reason no
     * retry mends (NOAUTH, WRONGPASS: Redis restarted with a password) is classified (logged
     * once) as at a start, where it used to show only as "not connected" for as long as it lasted.
     * An attempt {@link #cutShort} keeps the refusal known before it: it may be one, misreported.
     */
    private void connectionEvent(Event event) {
        if (event instanceof ReconnectFailedEvent failed) {
            if (classified(failed.getCause()) instanceof Misconfigured refused) {
                reconnectRefused = refused;
            } else if (!cutShort(failed.getCause())) {
                reconnectRefused = null;
            }
        } else if (event instanceof ConnectionActivatedEvent) {
            reconnectRefused = null;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T commands(StatefulConnection<String, String> c) {
        return c instanceof StatefulRedisClusterConnection<String, String> cluster
                ? (T) cluster.async()
                : (T) ((StatefulRedisConnection<String, String>) c).async();
    }

    /** One decision waiting for its verdict. */
    private record Waiter(int permits, CompletableFuture<Verdict> verdict) {}

    /**
     * Calls in flight for one key before its decisions are coalesced. One would make a decision
     * that arrives while its key's call is in flight wait for that call and then for its own: two
     * round trips (measured with 4 threads on one hot key: a p99 of 1.31 x a bare script's with
     * one call in flight, 1.17 to 1.21 x with four; BENCHMARKS.md).
     */
    static final int CALLS_PER_KEY = 4;

    /**
     * A key with calls in flight, and the decisions for it that arrived while {@link
     * #CALLS_PER_KEY} were, which go together in the next call. Guarded by {@link #inFlight}'s
     * per-key atomicity.
     */
    private static final class KeyCalls {
        /** The window of the decisions in {@code next}: one call decides them all by one limit. */
        SharedWindow window;

        int calls = 1;
        List<Waiter> next;

        KeyCalls(SharedWindow window) {
            this.window = window;
        }
    }

    /**
     * Each window's limit, bucket length, span and TTL as the script takes them, made once; emptied
     * when it holds {@link #MAX_SHAPES}, so that rules changed again and again (a limit set by code
     * every second) do not fill it for good.
     */
    private final ConcurrentHashMap<SharedWindow, String[]> shapes = new ConcurrentHashMap<>();

    static final int MAX_SHAPES = 1024;

    /** How many shapes {@link #shapes} holds now. */
    int shapesKept() {
        return shapes.size();
    }

    private static String[] shape(SharedWindow window) {
        return new String[] {
            Long.toString(window.limit()),
            Long.toString(window.bucketMicros()),
            Integer.toString(window.span()),
            Long.toString(window.ttlMillis())
        };
    }

    /**
     * The suffix of the key beside a window's key that notes what the window took of its rule's
     * previous shape's key (window.lua's KEYS[3]); no window's key ends so (theirs end in digits).
     */
    static final String TOOK = ":took";

    /** The keys with a call in flight. */
    private final ConcurrentHashMap<String, KeyCalls> inFlight = new ConcurrentHashMap<>();

    /**
     * Starts a decision. While {@link #CALLS_PER_KEY} calls for the same key are in flight, the
     * decisions that arrive are coalesced: they go together in the next call, which the script
     * decides one after the other, at one instant (so exactly as if sent one by one). One hot key
     * then costs a few calls per round trip, not one per request.
     */
    @Override
    public CompletionStage<Verdict> tryAcquire(SharedWindow window, String key, int permits) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("the store is closed"));
        }
        boolean permitted = breaker.tryAcquirePermission();
        breakerLog.report();
        if (!permitted) {
            return CompletableFuture.failedFuture(CallNotPermittedException.createCallNotPermittedException(breaker));
        }
        Waiter waiter = waiter(permits);
        boolean[] sendNow = {false};
        inFlight.compute(key, (k, calls) -> {
            if (calls == null) {
                sendNow[0] = true;
                return new KeyCalls(window);
            }
            if (calls.calls < CALLS_PER_KEY) {
                sendNow[0] = true;
                calls.calls++;
            } else if (calls.next == null) {
                calls.window = window;
                calls.next = new ArrayList<>();
                calls.next.add(waiter);
            } else if (calls.window.equals(window)) {
                calls.next.add(waiter);
            } else {
                // Another version of the rule (a reload changed its limit): its own call, by its
                // own limit, rather than with the waiting decisions of the version before.
                sendNow[0] = true;
                calls.calls++;
            }
            return calls;
        });
        if (sendNow[0]) {
            send(window, key, List.of(waiter), null, () -> sent(key));
        }
        return waiter.verdict;
    }

    /** A call for {@code key} is answered: the decisions that waited for one go next, together. */
    private void sent(String key) {
        Object[] next = new Object[2];
        inFlight.compute(key, (k, calls) -> {
            if (calls == null) {
                return null;
            }
            if (calls.next == null) {
                return --calls.calls == 0 ? null : calls; // nothing waits: one call fewer in flight
            }
            next[0] = calls.window;
            next[1] = calls.next;
            calls.next = null;
            return calls;
        });
        if (next[0] != null) {
            @SuppressWarnings("unchecked")
            List<Waiter> waiters = (List<Waiter>) next[1];
            send((SharedWindow) next[0], key, waiters, null, () -> sent(key));
        }
    }

    /** A decision at {@code nowMicros} instead of Redis's time, alone in its call, for tests. */
    CompletionStage<Verdict> decide(SharedWindow window, String key, int permits, long nowMicros) {
        return decideTogether(window, key, nowMicros, permits).get(0);
    }

    /** Decisions in one call, as coalescing sends them, at {@code nowMicros}, for tests. */
    List<CompletableFuture<Verdict>> decideTogether(SharedWindow window, String key, long nowMicros, int... permits) {
        List<Waiter> waiters = new ArrayList<>();
        for (int p : permits) {
            breaker.acquirePermission();
            waiters.add(waiter(p));
        }
        send(window, key, waiters, nowMicros, () -> {});
        return waiters.stream().map(Waiter::verdict).toList();
    }

    /**
     * A decision's verdict to come; the circuit breaker counts each decision (its permission was
     * taken), one cancelled when its caller's time budget ran out as a failure. One cancelled
     * sooner says nothing about Redis (another rule rejected the request first, and its caller
     * stopped waiting): its permission is released, and it counts neither way. The caller's budget
     * starts a moment before the decision does, hence "sooner" is before 9/10 of the budget. Nor
     * does a decision a full Redis refused ({@link Full}): Redis answered at once, and still
     * decides every rejection (a write it refuses is an admission's); an open breaker would send
     * those to the failure policy too, a fresh local share for a client Redis counts at its limit.
     * Nor one refused for its key alone ({@code WRONGTYPE}, another application's key; {@code
     * NOPERM} for a key the user's ACL does not cover): Redis answered at once, and decides every
     * other key; an open breaker would send every shared rule to its failure policy for as long as
     * that key is there (with {@code open}, no limit at all).
     */
    private Waiter waiter(int permits) {
        long start = System.nanoTime();
        CompletableFuture<Verdict> verdict = new CompletableFuture<>();
        verdict.whenComplete((v, failure) -> {
            long took = System.nanoTime() - start;
            if (failure == null) {
                breaker.onSuccess(took, TimeUnit.NANOSECONDS);
            } else if (failure instanceof CancellationException && took < budgetNanos / 10 * 9
                    || failure instanceof Full
                    || failure instanceof Misconfigured m && m.oneKey) {
                breaker.releasePermission();
            } else {
                breaker.onError(took, TimeUnit.NANOSECONDS, failure);
                if (failure instanceof CancellationException || failure instanceof RedisCommandTimeoutException) {
                    unanswered();
                }
            }
            breakerLog.report();
        });
        return new Waiter(permits, verdict);
    }

    /**
     * One call of the script for the decisions of {@code waiters} on {@code key}, in their order;
     * {@code then} runs when Redis answered or the call failed. A waiter whose caller stopped
     * waiting gets nothing, and what Redis admitted for it goes back.
     */
    private void send(SharedWindow window, String key, List<Waiter> waiters, Long nowMicros, Runnable then) {
        CompletableFuture<StatefulConnection<String, String>> connecting = connection();
        if (!connecting.isDone()) {
            // Sent once connected, for the decisions still waited for then: one whose caller
            // stopped waiting meanwhile (its budget ran out and the failure policy decided, or
            // another rule rejected the request) would count permits in Redis for no request.
            connecting.whenComplete((c, failure) -> send(connecting, window, key, waiters, nowMicros, then));
        } else {
            send(connecting, window, key, waiters, nowMicros, then);
        }
    }

    private void send(
            CompletableFuture<StatefulConnection<String, String>> connecting,
            SharedWindow window,
            String key,
            List<Waiter> waiters,
            Long nowMicros,
            Runnable then) {
        List<Waiter> waiting = new ArrayList<>(waiters.size());
        for (Waiter w : waiters) {
            if (!w.verdict.isDone()) {
                waiting.add(w);
            }
        }
        if (waiting.isEmpty()) {
            then.run();
            return;
        }
        String permits;
        if (waiting.size() == 1) {
            permits = Integer.toString(waiting.get(0).permits);
        } else {
            StringBuilder all = new StringBuilder();
            for (Waiter w : waiting) {
                all.append(all.length() == 0 ? "" : ",").append(w.permits);
            }
            permits = all.toString();
        }
        String[] shape = shapes.get(window);
        if (shape == null) {
            if (shapes.size() >= MAX_SHAPES) {
                shapes.clear(); // those in use are made again at their next decision
            }
            shape = shapes.computeIfAbsent(window, RedisWindowStore::shape);
        }
        SharedWindow previous = window.previous();
        String previousKey = previous == null ? null : window.previousKey(key);
        if (previousKey == null) {
            previous = null; // a key not of the window's shape: nothing to go on from
        }
        String[] args = previous != null ? new String[9] : nowMicros == null ? new String[6] : new String[7];
        args[0] = "a";
        args[1] = permits;
        System.arraycopy(shape, 0, args, 2, 4);
        if (args.length > 6) {
            args[6] = nowMicros == null ? "" : Long.toString(nowMicros);
        }
        String[] keys;
        if (previous == null) {
            keys = new String[] {prefix + key};
        } else {
            // A key the rule's previous version (another window) may still count in: the new key,
            // while it holds nothing, starts from it; and where the new key takes of it what it
            // took (window.lua). All in one Redis Cluster slot (the braces).
            keys = new String[] {prefix + key, prefix + previousKey, prefix + key + TOOK};
            args[7] = Long.toString(previous.bucketMicros());
            args[8] = Integer.toString(previous.span());
        }
        run(connecting, keys, args, (reply, failure) -> {
            try {
                Verdict[] verdicts = null;
                if (failure == null) {
                    try {
                        verdicts = verdicts(reply, waiting.size());
                    } catch (RuntimeException e) {
                        // Every waiter must be completed: one left waiting would wait out its
                        // caller's whole budget, and the exception would vanish in the future.
                        failure = unexpected(reply, e);
                    }
                }
                for (int i = 0; i < waiting.size(); i++) {
                    Waiter w = waiting.get(i);
                    if (failure != null) {
                        w.verdict.completeExceptionally(failure);
                        continue;
                    }
                    Verdict v = verdicts[i];
                    if (!w.verdict.complete(v) && v.admitted()) {
                        giveBack(key, v.bucket(), w.permits);
                    }
                }
            } catch (RuntimeException | Error e) {
                // Thrown where nothing is: Lettuce would swallow it, and a waiter left waiting would
                // wait out its caller's whole budget (a direct caller of the store, for ever).
                for (Waiter w : waiting) {
                    w.verdict.completeExceptionally(e);
                }
                throw e;
            } finally {
                then.run();
            }
        });
    }

    /**
     * The verdicts of the script's reply to {@code decisions} decisions: {@code {bucket, now}} and
     * three integers per decision.
     *
     * @throws RuntimeException for any other reply
     */
    private static Verdict[] verdicts(List<Object> reply, int decisions) {
        if (reply.size() != 2 + 3 * decisions) {
            throw new IllegalStateException(
                    reply.size() + " values, not " + (2 + 3 * decisions) + " for " + decisions + " decisions");
        }
        Verdict[] verdicts = new Verdict[decisions];
        long bucket = (Long) reply.get(0);
        long now = (Long) reply.get(1);
        for (int i = 0; i < decisions; i++) {
            verdicts[i] = new Verdict((Long) reply.get(2 + 3 * i) == 1, bucket, (Long) reply.get(3 + 3 * i), now, (Long)
                    reply.get(4 + 3 * i));
        }
        return verdicts;
    }

    /**
     * A reply the script never gives (numbers as strings, values missing): a server that runs the
     * script otherwise than Redis does, which no retry mends; logged once at ERROR like the other
     * configuration errors. What it may have admitted stays counted (the strict side).
     */
    private Throwable unexpected(List<Object> reply, RuntimeException e) {
        String shown = String.valueOf(reply);
        if (shown.length() > 200) {
            shown = shown.substring(0, 200) + "...";
        }
        String shape = reply == null || reply.isEmpty() || reply.get(0) == null
                ? ""
                : " (" + reply.get(0).getClass().getSimpleName() + " values)";
        return errors.misconfigured(
                "REPLY",
                "the server answered the decision script with an unexpected reply, " + shown + shape
                        + ", where Redis answers a list of integers: the store needs Redis 6.2 or later, or a"
                        + " server that runs Lua scripts and answers them as Redis does",
                e instanceof ClassCastException || e instanceof NullPointerException
                        ? "values that are not integers"
                        : e.toString(),
                "every shared rule decides by its store-on-failure",
                e);
    }

    /**
     * Runs the script on {@code keys} with {@code args} on the connection {@code connecting} makes:
     * EVALSHA, and EVAL when Redis does not know the script (restarted, or SCRIPT FLUSH). Straight
     * on the connection when there is one.
     */
    private void run(
            CompletableFuture<StatefulConnection<String, String>> connecting,
            String[] keys,
            String[] args,
            BiConsumer<List<Object>, Throwable> done) {
        StatefulConnection<String, String> c =
                connecting.isDone() && !connecting.isCompletedExceptionally() ? connecting.join() : null;
        if (c == null) {
            connecting.whenComplete((connected, failure) -> {
                if (failure != null) {
                    done.accept(
                            null, classified(failure instanceof CompletionException ? failure.getCause() : failure));
                } else {
                    run(connected, keys, args, done);
                }
            });
        } else {
            run(c, keys, args, done);
        }
    }

    private void run(
            StatefulConnection<String, String> c,
            String[] keys,
            String[] args,
            BiConsumer<List<Object>, Throwable> done) {
        RedisScriptingAsyncCommands<String, String> scripting = commands(c);
        String digest = sha;
        if (digest == null) {
            digest = scripting.digest(SCRIPT);
            sha = digest;
        }
        scripting
                .<List<Object>>evalsha(digest, ScriptOutputType.MULTI, keys, args)
                .whenComplete((result, failure) -> {
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    if (cause == null || cause instanceof RedisCommandExecutionException) {
                        replied(); // an error reply is a reply: the connection works
                    }
                    if (cause instanceof RedisNoScriptException) {
                        scripting
                                .<List<Object>>eval(SCRIPT, ScriptOutputType.MULTI, keys, args)
                                .whenComplete((again, failed) -> done.accept(
                                        again,
                                        classified(
                                                failed instanceof CompletionException ? failed.getCause() : failed,
                                                keys)));
                    } else {
                        done.accept(result, classified(cause, keys));
                    }
                });
    }

    /**
     * {@code failure}, or when Redis's error says the store is set up wrong (see the class comment),
     * a {@link Misconfigured} failure that names the setting, its value and what is wrong, logged
     * once per kind at ERROR; when Redis is full, a {@link Full} failure that says so, not logged
     * here (each rule's switch message shows it). Null for null.
     */
    private Throwable classified(Throwable failure) {
        return classified(failure, null);
    }

    /** {@link #classified(Throwable)} for a command on {@code keys} (null: none), which a WRONGTYPE names. */
    private Throwable classified(Throwable failure, String[] keys) {
        Misconfigured refused = reconnectRefused;
        if (refused != null
                && failure instanceof RedisException
                && String.valueOf(failure.getMessage()).contains("not connected")) {
            return refused; // rejected while Lettuce reconnects, which Redis refuses: say why
        }
        return errors.classified(failure, keys);
    }

    /**
     * Gives back {@code permits}: best effort, one that cannot be made (the breaker open, Redis
     * down or full) leaves the window counting them, the strict side.
     */
    @Override
    public void refund(SharedWindow window, String key, long bucket, int permits) {
        if (closed || breaker.getState() == CircuitBreaker.State.OPEN) {
            return; // best effort: a refund that cannot be made leaves the window conservative
        }
        giveBack(key, bucket, permits);
    }

    private void giveBack(String key, long bucket, int permits) {
        run(
                connection(),
                new String[] {prefix + key},
                new String[] {"r", Integer.toString(permits), Long.toString(bucket)},
                (ok, failure) -> {
                    if (failure != null) {
                        LOG.debug("Leapgate Redis store: refund of {} failed: {}", key, failure.toString());
                    }
                });
    }

    /**
     * Counts this instance in, and the instances that counted themselves in lately: one script
     * (one round trip), on Redis's clock.
     */
    private void beat() {
        if (closed) {
            return;
        }
        String[] key = {prefix + "instances"};
        connection().thenAccept(c -> {
            RedisScriptingAsyncCommands<String, String> scripting = commands(c);
            scripting
                    .<Long>eval(
                            INSTANCES_SCRIPT,
                            ScriptOutputType.INTEGER,
                            key,
                            instanceId,
                            Long.toString(INSTANCE_EXPIRY.toMillis()))
                    .whenComplete((n, failure) -> {
                        if (failure != null) {
                            classified(failure, key);
                            LOG.debug("Leapgate Redis store {}: heartbeat failed", settings.shownUri(), failure);
                        } else {
                            replied();
                            instances = (int) Math.max(1, Math.min(Integer.MAX_VALUE, n));
                        }
                    });
        });
    }

    @Override
    public int instances() {
        return settings.instances() > 0 ? settings.instances() : instances;
    }

    @Override
    public void close() {
        closed = true;
        connectionEvents.dispose();
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        Connecting current = connection.get();
        current.future.thenAccept(StatefulConnection::close);
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        client.getResources().shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "RedisWindowStore[" + settings.shownUri() + ", prefix " + settings.keyPrefix() + "]";
    }

    private static String script(String name) {
        try (InputStream in = RedisWindowStore.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from leapgate-redis");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.protocol.CommandType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A store that is set up wrong (a password Redis refuses or needs, a Redis user without the
 * commands or keys the store needs, a read-only replica, a Sentinel named by a {@code redis://}
 * URI) is reported as a configuration error, at
 * ERROR, once, naming the {@code store} setting and its value (without the password) and what is
 * wrong; the failure policy's message names it too. It used to look like a Redis that is down
 * ("Unable to connect to ..."), for as long as the application ran, while the failure policy
 * quietly decided every request.
 */
class StoreMisconfigurationTest {

    private static final String PASSWORD = "s3cret-pw";

    private static RedisProcess redis;
    private static RedisProcess replica;
    private static RedisProcess clusterNode;
    private static RedisProcess sentinel;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisProcess.start("--requirepass", PASSWORD);
        String uri = "redis://:" + PASSWORD + "@127.0.0.1:" + redis.port();
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
        try (var connection = client.connect()) {
            connection
                    .sync()
                    .aclSetuser(
                            "noscripts",
                            AclSetuserArgs.Builder.on()
                                    .addPassword("pw")
                                    .allKeys()
                                    .allCommands()
                                    .removeCommand(CommandType.EVALSHA)
                                    .removeCommand(CommandType.EVAL));
            connection
                    .sync()
                    .aclSetuser(
                            "notime", // refused within the script, whose first call is TIME
                            AclSetuserArgs.Builder.on()
                                    .addPassword("pw")
                                    .allKeys()
                                    .allCommands()
                                    .removeCommand(CommandType.TIME));
            connection
                    .sync()
                    .aclSetuser(
                            "otherkeys",
                            AclSetuserArgs.Builder.on()
                                    .addPassword("pw")
                                    .keyPattern("other:*")
                                    .allCommands());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        // A replica of a master that is not there: read-only, as any replica is.
        replica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(RedisProcess.freePort()));
        // A cluster of one master that serves every slot, with a password.
        clusterNode = RedisProcess.start(
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--requirepass", PASSWORD);
        client = io.lettuce.core.RedisClient.create("redis://:" + PASSWORD + "@127.0.0.1:" + clusterNode.port());
        try (var connection = client.connect()) {
            connection.sync().clusterAddSlots(IntStream.range(0, 16384).toArray());
            Polling.eventually(
                    "the cluster is ok",
                    Duration.ofSeconds(30),
                    () -> connection.sync().clusterInfo().contains("cluster_state:ok"));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        // A Sentinel, which answers the store's scripts "ERR unknown command": the master it
        // watches plays no part.
        sentinel = RedisProcess.sentinel("mymaster", redis.port(), Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (sentinel != null) {
                sentinel.close();
            }
        } finally {
            try {
                if (clusterNode != null) {
                    clusterNode.close();
                }
            } finally {
                try {
                    if (replica != null) {
                        replica.close();
                    }
                } finally {
                    if (redis != null) {
                        redis.close();
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no password    | redis://127.0.0.1:{port}                  | requires a password",
                "wrong password | redis://:wrong-pw@127.0.0.1:{port}        | refused the user name or password",
                "no scripts     | redis://noscripts:pw@127.0.0.1:{port}     | may not do what the store needs",
                "no TIME        | redis://notime:pw@127.0.0.1:{port}        | may not do what the store needs",
                "other keys     | redis://otherkeys:pw@127.0.0.1:{port}     | allow it the keys ~leapgate:*",
                "a replica      | redis://127.0.0.1:{replica}               | read-only replica",
                "a cluster's wrong password | redis-cluster://:wrong-pw@127.0.0.1:{cluster} | refused the user name or password",
                "no database 16 | redis://:{pw}@127.0.0.1:{port}/16         | database 16",
                "a Sentinel     | redis://127.0.0.1:{sentinel}              | use redis-sentinel://host:port?sentinelMasterId=",
            })
    void aStoreSetUpWrong_isReportedOnceAsAConfigurationError_namingTheSetting(
            String what, String uri, String explained) throws Exception {
        String store = uri.replace("{port}", Integer.toString(redis.port()))
                .replace("{replica}", Integer.toString(replica.port()))
                .replace("{cluster}", Integer.toString(clusterNode.port()))
                .replace("{sentinel}", Integer.toString(sentinel.port()))
                .replace("{pw}", PASSWORD);
        String shown =
                store.replace(":wrong-pw@", ":***@").replace(":pw@", ":***@").replace(":" + PASSWORD + "@", ":***@");
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-timeout", "2s");
        settings.put("store-on-failure", "open");
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "3/1m");
        settings.put("rule.login.scope", "per-origin");
        Origin client = Origin.ip(IpAddress.parse("203.0.113.9"), 64);

        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        long decided;
        try (HttpGate gate =
                HttpGate.builder(ConfigParser.parse(settings, "test")).build()) {
            // Decisions for a while: the store tries to connect again (every 500 ms), and its
            // circuit breaker opens and probes; the error is still reported once.
            long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            Polling.eventually("decisions for 1.5 s", Duration.ofSeconds(30), () -> {
                Decision d = gate.enter("POST", "/login", client);
                if (d instanceof Entry entry) {
                    entry.close();
                }
                return System.nanoTime() - until > 0;
            });
            decided = gate.store("login").orElseThrow().decidedWithoutStore();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        err.print(log);

        assertThat(decided).as("decided by the failure policy").isPositive();
        // Leapgate's own ERROR lines: when Redis refuses the connection's handshake (SELECT of a
        // database it does not have), Lettuce's connection setup can fail twice, and Reactor, which
        // Lettuce uses within, then logs the second error at ERROR ("Operator called default
        // onErrorDropped", logger reactor.core.publisher.Operators): seen once in a CI run on Redis 7.
        List<String> errors = log.lines()
                .filter(line -> line.contains("ERROR") && line.contains(" dev.leapgate."))
                .toList();
        assertThat(errors)
                .as("%s: logged once at ERROR, naming the setting, its value and what is wrong", what)
                .singleElement()
                .asString()
                .contains("store = " + shown + ":")
                .contains(explained)
                .contains("configuration error");
        assertThat(log.lines().filter(line -> line.contains("Leapgate rule 'login': the shared store did not decide")))
                .as("the failure policy's message names the mistake, not a connection failure")
                .singleElement()
                .asString()
                .contains("store = " + shown + ":")
                .doesNotContain("Unable to connect");
        assertThat(log).doesNotContain(PASSWORD).doesNotContain("wrong-pw");
        assertThat(log).as("not as an unreachable Redis").doesNotContain("at the start; until Redis answers");
    }

    /**
     * Redis's ACL refusals, in the words of 6.2 and 7: one for the keys fails the decisions on those
     * keys alone, one for the command every decision (the circuit breaker counts it). A user name
     * may hold "access" ({@code dataaccess}), and a refused database is no key.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "NOPERM this user has no permissions to access one of the keys used as arguments | true",
                "NOPERM No permissions to access a key | true",
                "NOPERM No permissions to access the 'leapgate:{r:a}:a:6000x10' key | true",
                "ERR Error running script: The user executing the script can't access at least one of the keys"
                        + " mentioned in the command | true",
                "ERR The user executing the script can't access at least one of the keys mentioned in the command"
                        + " arguments script: 88e6839f3e4e04bee31533e0e43673007a2f9f91, on @user_script:1. | true",
                "ERR The user executing the script can't run this command or subcommand script:"
                        + " 104ae65debf45156ded1e8e613705534c8e62c17, on @user_script:1. | false",
                "NOPERM this user has no permissions to run the 'evalsha' command or its subcommand | false",
                "NOPERM User dataaccess has no permissions to run the 'evalsha' command | false",
                "NOPERM No permissions to access database | false",
                "ERR ACL failure in script: User dataaccess has no permissions to run the 'time' command | false",
            })
    void aRefusalForKeys_isToldFromARefusalForTheCommand(String error, boolean forKeys) {
        assertThat(RedisErrors.refusedForKeys(error)).isEqualTo(forKeys);
    }

    /**
     * Lettuce sometimes reports a handshake Redis refused (a wrong password) as "Connection closed
     * prematurely" (about 1 in 150 here): such a connection is tried again at once, a bounded number
     * of times, so that the refusal is reported as what it is; any other failure is not tried again.
     */
    @Test
    void aHandshakeCutShort_isTriedAgainAtOnce_anyOtherFailureIsNot() {
        RedisConnectionException cutShort = new RedisConnectionException(
                "Unable to connect to 127.0.0.1:6379", new RedisConnectionException("Connection closed prematurely"));
        RedisCommandExecutionException refused =
                new RedisCommandExecutionException("WRONGPASS invalid username-password pair or user is disabled.");
        AtomicInteger attempts = new AtomicInteger();

        // Cut short twice, then refused: the refusal is what the caller sees.
        CompletableFuture<String> connected = RedisWindowStore.triedAgainWhenCutShort(
                () -> CompletableFuture.failedFuture(attempts.incrementAndGet() < 3 ? cutShort : refused),
                RedisWindowStore.CUT_SHORT_TRIES);
        assertThat(connected)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .havingRootCause()
                .isSameAs(refused);
        assertThat(attempts).hasValue(3);

        // Cut short once, then connected.
        attempts.set(0);
        assertThat(RedisWindowStore.triedAgainWhenCutShort(
                        () -> attempts.incrementAndGet() == 1
                                ? CompletableFuture.failedFuture(cutShort)
                                : CompletableFuture.completedFuture("connection"),
                        RedisWindowStore.CUT_SHORT_TRIES))
                .isCompletedWithValue("connection");
        assertThat(attempts).hasValue(2);

        // Cut short every time: given up after the bound, with the last failure.
        attempts.set(0);
        assertThat(RedisWindowStore.triedAgainWhenCutShort(
                        () -> {
                            attempts.incrementAndGet();
                            return CompletableFuture.<String>failedFuture(cutShort);
                        },
                        RedisWindowStore.CUT_SHORT_TRIES))
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .satisfies(e -> assertThat(RedisWindowStore.cutShort(e)).isTrue());
        assertThat(attempts).hasValue(RedisWindowStore.CUT_SHORT_TRIES);

        // A Redis Cluster's first connection: each seed node's failure is suppressed in the one
        // thrown (Lettuce 7.7), and a node cut short is found there.
        RedisException nodesFailed = new RedisException("Cannot retrieve cluster partitions from [redis://127.0.0.1]");
        nodesFailed.addSuppressed(cutShort);
        RedisConnectionException clusterCutShort =
                new RedisConnectionException("Unable to establish a connection to Redis Cluster", nodesFailed);
        attempts.set(0);
        assertThat(RedisWindowStore.triedAgainWhenCutShort(
                        () -> attempts.incrementAndGet() == 1
                                ? CompletableFuture.failedFuture(clusterCutShort)
                                : CompletableFuture.completedFuture("connection"),
                        RedisWindowStore.CUT_SHORT_TRIES))
                .isCompletedWithValue("connection");
        assertThat(attempts).hasValue(2);

        // Refused, or Redis not there: tried once.
        for (Throwable failure : List.of(
                refused,
                new RedisConnectionException(
                        "Unable to connect to 127.0.0.1:1", new java.net.ConnectException("Connection refused")))) {
            attempts.set(0);
            assertThat(RedisWindowStore.triedAgainWhenCutShort(
                            () -> {
                                attempts.incrementAndGet();
                                return CompletableFuture.<String>failedFuture(failure);
                            },
                            RedisWindowStore.CUT_SHORT_TRIES))
                    .isCompletedExceptionally();
            assertThat(attempts).as("%s", failure).hasValue(1);
        }
    }
}

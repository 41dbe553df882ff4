package dev.leapgate.redis;

import static dev.leapgate.redis.Polling.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Decision;
import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.stats.StoreStats;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A store found through Redis Sentinel ({@code redis-sentinel://}): a master, its replica and one
 * Sentinel, real processes. Decisions go to the master the Sentinel names; when that master dies
 * and the Sentinel promotes the replica, the store follows by itself, the failure policy decides
 * meanwhile, and the shared window carries on from what the replica had copied.
 */
class RedisSentinelTest {

    private static final String MASTER = "leapgate";
    private static final Duration BUDGET = Duration.ofMillis(300);
    /** What "no longer than the budget" may take on a loaded 2-core CI machine; only proves that nothing hangs. */
    private static final Duration BOUND = Duration.ofSeconds(2);

    private RedisProcess master;
    private RedisProcess replica;
    private RedisProcess sentinel;
    private HttpGate gate;
    private final Origin client = Origin.ip(IpAddress.parse("198.51.100.7"), 64);

    @BeforeEach
    void start() throws Exception {
        master = RedisProcess.start();
        replica = RedisProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        sentinel = RedisProcess.sentinel(MASTER, master.port(), Duration.ofMillis(500));
        eventually(() -> replica.call(c -> c.info("replication")).contains("master_link_status:up"));
        eventually(() -> sentinel.call(c -> c.info("sentinel")).contains("slaves=1"));
    }

    @AfterEach
    void stop() throws Exception {
        // Each stopped whatever happened before, and whichever of them started (@BeforeEach may
        // have failed half-way): a null or a throwing close must not leave the others running.
        try {
            if (gate != null) {
                gate.close();
            }
        } finally {
            try {
                if (sentinel != null) {
                    sentinel.close();
                }
            } finally {
                try {
                    if (replica != null) {
                        replica.close();
                    }
                } finally {
                    if (master != null) {
                        master.close();
                    }
                }
            }
        }
    }

    private HttpGate gate() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", "redis-sentinel://127.0.0.1:" + sentinel.port() + "/?sentinelMasterId=" + MASTER);
        settings.put("store-timeout", BUDGET.toMillis() + "ms");
        settings.put("store-on-failure", "closed"); // only the shared window admits
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "5/1m");
        settings.put("rule.login.scope", "per-origin");
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build();
    }

    /** Decides once, failing the test if the decision took longer than {@link #BOUND}. */
    private boolean admitted() {
        long start = System.nanoTime();
        Decision d = gate.enter("POST", "/login", client);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
        if (d instanceof Entry entry) {
            entry.close();
            return true;
        }
        return false;
    }

    /** The permits a server counts for the test's client. */
    private static long counted(RedisProcess redis) {
        return redis.call(c -> c.keys("leapgate:{o:*").stream()
                .mapToLong(k -> SharedLimitTest.counted(c.get(k)))
                .sum());
    }

    @Test
    void decisionsGoToTheMasterTheSentinelNames_andFollowItsReplicaAfterAFailover() throws Exception {
        gate = gate();
        for (int i = 0; i < 3; i++) {
            assertThat(admitted()).as("admission %d", i + 1).isTrue();
        }
        assertThat(counted(master)).as("counted on the master").isEqualTo(3);
        eventually(() -> counted(replica) == 3); // copied to the replica

        master.kill();
        // While the Sentinel notices and promotes the replica, the failure policy ("closed")
        // rejects; once the store reaches the new master, the window admits again: with 3 of 5
        // counted, exactly 2 more.
        eventually(this::admitted);
        AtomicInteger more = new AtomicInteger(1);
        // The breaker may switch a few more times while the connection settles (the policy then
        // rejects): decide until the window is full on the new master and the store decides.
        eventually(() -> {
            more.addAndGet(admitted() ? 1 : 0);
            return counted(replica) == 5 && gate.store("login").orElseThrow().available();
        });
        for (int i = 0; i < 5; i++) {
            assertThat(admitted()).as("over the limit").isFalse();
        }

        assertThat(more.get()).as("admitted after the failover").isEqualTo(2);
        assertThat(counted(replica)).as("counted on the promoted replica").isEqualTo(5);
        String role = replica.call(c -> c.info("replication"));
        assertThat(role).contains("role:master");
        StoreStats stats = gate.store("login").orElseThrow();
        // One outage, or a few: a breaker probe may reach the new master and the next call fail
        // again while the connection still moves over.
        assertThat(stats.outages()).as("outages during one failover").isBetween(1L, 4L);
        assertThat(stats.decidedWithoutStore())
                .as("rejected by the policy meanwhile")
                .isPositive();
    }
}

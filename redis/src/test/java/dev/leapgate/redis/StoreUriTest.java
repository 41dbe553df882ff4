package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.leapgate.config.ConfigException;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A {@code store} whose hosts cannot be read fails at start, naming the setting, its value and
 * the host at fault; Lettuce would take such an authority whole for a host name, and every decision
 * would then go to the failure policy, with the mistake shown only as a connection failure.
 */
class StoreUriTest {

    private static HttpGate gate(String store) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "10/1m");
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build();
    }

    /**
     * A URI that cannot be used fails the start, naming the setting and what is wrong, never showing
     * the password: a host that is not {@code host[:port]}; a database that is not a number ({@code
     * /abc} used to fail with Lettuce's "For input string"); a Sentinel URI without its master (it
     * said "URI must contain the sentinelMasterId"); a database on a Redis Cluster URI, which has
     * database 0 alone (it was dropped without a word); a {@code verifyPeer} Lettuce cannot read (it
     * said "No enum constant io.lettuce.core.SslVerifyMode.FALSE"); a database named twice, or a
     * {@code sentinelMasterId} on a URI that names no Sentinel (Lettuce used one and ignored the
     * other, or ignored the master's name and connected to the host as a Redis).
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "redis://redis.internal:6379x | 'redis.internal:6379x'",
                "redis://10.0.0.1:6379,10.0.0.2:6379 | redis-sentinel:// or redis-cluster://",
                "redis://:secret@:6379 | ':6379'",
                "redis://redis.internal:0 | port",
                "redis-cluster://10.0.0.1:7000,10.0.0.2:70O1 | '10.0.0.2:70O1'",
                "redis://:secret@redis.internal:6379/abc | the database (the path) must be a number from 0, was '/abc'",
                "redis://redis.internal:6379/99999999999 | the database (the path) must be a number from 0",
                "redis-sentinel://:secret@10.0.0.1:26379,10.0.0.2:26379 | names no master: add ?sentinelMasterId=",
                "redis-cluster://:secret@10.0.0.1:7000/3 | a Redis Cluster has database 0 alone",
                // Lettuce drops a parameter it does not know, or a database it cannot read, unsaid:
                // the store then used database 0, sharing its keys with whatever else is there.
                "redis://:secret@redis.internal:6379?databse=3 | unknown parameter 'databse'",
                "redis://redis.internal:6379?DB=3 | unknown parameter 'DB'",
                "redis://redis.internal:6379/?database=x | the database (parameter database) must be a number from 0,"
                        + " was 'x'",
                "redis://redis.internal:6379?db= | the database (parameter db) must be a number from 0, was ''",
                "redis-cluster://10.0.0.1:7000?db=2 | a Redis Cluster has database 0 alone; remove 'db=2'",
                "rediss://:secret@127.0.0.1:1?verifyPeer=false | the parameter verifyPeer must be NONE, CA or FULL"
                        + " (in any case), was 'false'",
                "rediss-cluster://10.0.0.1:7000?verifyPeer= | the parameter verifyPeer must be NONE, CA or FULL"
                        + " (in any case), was ''",
                "redis://:secret@127.0.0.1:1/0?database=3 | the database is named twice, by the path '/0' and by"
                        + " 'database=3'; name it once",
                "redis://127.0.0.1:1?db=1&database=2 | the database is named twice, by 'db=1' and by 'database=2'",
                "redis://:secret@127.0.0.1:1/?sentinelMasterId=mymaster | 'sentinelMasterId=mymaster' belongs to"
                        + " redis-sentinel:// and rediss-sentinel:// URIs",
                "rediss://127.0.0.1:1?SENTINELMASTERID=mymaster | 'SENTINELMASTERID=mymaster' belongs to"
                        + " redis-sentinel://",
                "redis-cluster://10.0.0.1:7000?sentinelMasterId=mymaster | 'sentinelMasterId=mymaster' belongs to"
                        + " redis-sentinel://",
                // A timeout Lettuce cannot read in full: it kept its 60 s (abc, an empty one), read 5 ms
                // (5, 5sec: the digits, an unknown unit as ms) or none at all (-5s, 0s: every
                // handshake timed out, and the store never connected).
                "redis://:secret@127.0.0.1:1?timeout=abc | the parameter timeout must be a whole number and a unit"
                        + " (ms, s, m), from 1s to 60s, was 'abc' (Lettuce would read it otherwise or not at all);"
                        + " it bounds connecting to Redis, not a decision's wait, which is store-timeout",
                "redis://127.0.0.1:1?timeout= | the parameter timeout must be a whole number and a unit (ms, s, m),"
                        + " from 1s to 60s, was ''",
                "redis://127.0.0.1:1?timeout=5 | was '5' (Lettuce would read a number alone as milliseconds)",
                "redis://127.0.0.1:1?timeout=5sec | was '5sec' (Lettuce would read it otherwise",
                "redis://127.0.0.1:1?timeout=-5s | was '-5s'",
                "redis://127.0.0.1:1?timeout=0s | from 1s to 60s, was '0s'; it bounds connecting to Redis (each"
                        + " connection's handshake, a Sentinel's answer, a Redis Cluster's topology), not a decision's"
                        + " wait, which is store-timeout",
                "redis://127.0.0.1:1?timeout=50ms | from 1s to 60s, was '50ms'",
                "redis://127.0.0.1:1?timeout=2h | from 1s to 60s, was '2h'",
                "redis://127.0.0.1:1?timeout=99999999999999999999s | was '99999999999999999999s'",
                "redis-cluster://10.0.0.1:7000?TIMEOUT=x | the parameter timeout must be a whole number",
                // Lettuce splits the query, decoded, at ';' as at '&': a typo after one was ignored.
                "redis://:secret@127.0.0.1:1?clientName=shop;databse=3 | unknown parameter 'databse'",
                "redis://127.0.0.1:1?clientName=shop%26databse=3 | unknown parameter 'databse'",
                "redis://127.0.0.1:1?clientName=a;db=1&db=2 | the database is named twice, by 'db=1' and by 'db=2'",
                // Named twice, a parameter's first value was ignored.
                "redis://127.0.0.1:1?timeout=5s&Timeout=10s | the parameter timeout is named twice, by"
                        + " 'timeout=5s' and by 'Timeout=10s'; name it once (Lettuce would use one and ignore the"
                        + " other)",
                "redis://127.0.0.1:1?clientName=a&clientName=b | the parameter clientName is named twice",
                // Without a value, or one Redis refuses: ignored, or the handshake fails.
                "redis://127.0.0.1:1?clientName= | the parameter clientName must be printable ASCII without spaces"
                        + " (what Redis takes), was '' (Lettuce ignores an empty one)",
                "redis://127.0.0.1:1?clientName | the parameter clientName must be printable ASCII",
                "redis://127.0.0.1:1?clientName=my%20shop | the parameter clientName must be printable ASCII without"
                        + " spaces (what Redis takes), was 'my shop'",
                "redis://127.0.0.1:1?libraryName=a%0Ab | the parameter libraryName must be printable ASCII",
                "redis://127.0.0.1:1?libraryVersion= | the parameter libraryVersion must be printable ASCII",
                "redis-sentinel://127.0.0.1:1?sentinelMasterId=m&sentinelMasterId= | the parameter sentinelMasterId"
                        + " is named twice",
                "redis-sentinel://127.0.0.1:1?sentinelMasterId | the parameter sentinelMasterId has no value",
                // verifyPeer on a URI without TLS: nothing was verified, and Lettuce said nothing.
                "redis://:secret@127.0.0.1:1?verifyPeer=FULL | 'verifyPeer=FULL' checks a TLS certificate, and a"
                        + " redis:// URI has no TLS (Lettuce ignores it); for TLS write rediss://..., else remove it",
                "redis-cluster://10.0.0.1:7000?verifyPeer=CA | a redis-cluster:// URI has no TLS (Lettuce ignores"
                        + " it); for TLS write rediss-cluster://...",
                "redis-sentinel://127.0.0.1:1?sentinelMasterId=m&verifyPeer=NONE | a redis-sentinel:// URI has no"
                        + " TLS",
            })
    void aStoreUriThatCannotBeUsed_failsAtStart_namingTheSettingAndWhatIsWrong(String store, String said) {
        ConfigException e =
                catchThrowableOfType(ConfigException.class, () -> gate(store).close());
        assertThat(e).as("%s accepted", store).isNotNull();
        assertThat(e.problems())
                .singleElement()
                .asString()
                .startsWith("store = ")
                .contains(said)
                .doesNotContain("secret");
    }

    /**
     * The parameters of a Redis Cluster URI apply to every seed node, as to the one node of a
     * {@code redis://} URI: {@code rediss-cluster://...?verifyPeer=NONE} (a private CA) used to
     * lose its parameters, and every connection then checked the certificate and failed.
     */
    @Test
    void aClusterUrisParameters_applyToEverySeedNode() {
        List<RedisURI> seeds = RedisUris.seeds(
                URI.create("rediss-cluster://:secret@10.0.0.1:7000,10.0.0.2:7001/?verifyPeer=NONE&clientName=shop"),
                "rediss");

        assertThat(seeds).hasSize(2).allSatisfy(seed -> {
            assertThat(seed.isSsl()).isTrue();
            assertThat(seed.getVerifyMode()).isEqualTo(SslVerifyMode.NONE);
            assertThat(seed.getClientName()).isEqualTo("shop");
        });
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 7001);
    }

    /**
     * Seeds of a Redis Cluster written as IPv6 literals are read, each with its brackets, port and
     * the parameters: {@link URI} cannot read an authority of several bracketed hosts, and the start
     * failed with "is not a URI: Illegal character in port number; ... (a password's reserved
     * characters percent-encoded)", which sent the user looking at a password.
     */
    @Test
    void aClusterUrisIpv6Seeds_areReadWithTheirPorts() {
        URI uri = ConfigParser.parse(
                        Map.of("store", "rediss-cluster://:secret@[::1]:7000,[2001:db8::5]:7001?verifyPeer=NONE"),
                        "test")
                .store()
                .orElseThrow()
                .uri();

        List<RedisURI> seeds = RedisUris.seeds(uri, "rediss");

        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("[::1]", "[2001:db8::5]");
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 7001);
        assertThat(seeds).allSatisfy(seed -> {
            assertThat(seed.getVerifyMode()).isEqualTo(SslVerifyMode.NONE);
            assertThat(seed.getCredentialsProvider()
                            .resolveCredentials()
                            .block()
                            .getPassword())
                    .containsExactly("secret".toCharArray());
        });
    }

    /**
     * Several IPv6 hosts are taken where several hosts are (a Redis Cluster's seeds, a Sentinel's
     * Sentinels); after {@code redis://} they are refused as several hosts are, not as a URI that
     * cannot be read; a malformed one is named.
     */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "redis://[::1]:6379,[::1]:6380 | '[::1]:6379,[::1]:6380' is not host[:port]; several hosts need"
                        + " redis-sentinel:// or redis-cluster://",
                "redis-cluster://[::1]:7000,[::1]:70x1 | '[::1]:70x1' is not host[:port]",
                "redis-cluster://[::1]:7000,[::1:7001 | '[::1:7001' is not host[:port]",
            })
    void severalIpv6Hosts_whereTheyCannotBeUsed_areNamed(String store, String said) {
        ConfigException e =
                catchThrowableOfType(ConfigException.class, () -> gate(store).close());
        assertThat(e).as("%s accepted", store).isNotNull();
        assertThat(e.problems())
                .singleElement()
                .asString()
                .startsWith("store = ")
                .contains(said);
    }

    /** The parameters Lettuce reads pass, in the spellings it reads (most of them in any case). */
    @ParameterizedTest
    @CsvSource({
        "redis://127.0.0.1:1/?database=3&clientName=shop&libraryName=x&libraryVersion=1&timeout=5s",
        "redis://127.0.0.1:1?timeout=1s",
        "redis://127.0.0.1:1?TIMEOUT=60S",
        "redis://127.0.0.1:1?timeout=1500ms;clientName=shop-1",
        "redis://127.0.0.1:1?timeout=1m",
        "rediss-cluster://127.0.0.1:1?timeout=10s&verifyPeer=CA",
        "'redis-cluster://[::1]:1,[::1]:2'",
        "'redis-sentinel://[::1]:1,[::1]:2?sentinelMasterId=mymaster'",
        "redis://127.0.0.1:1?db=3",
        "rediss://127.0.0.1:1?verifyPeer=NONE",
        "rediss://127.0.0.1:1?VERIFYPEER=CA",
        "rediss://127.0.0.1:1?verifyPeer=full",
        "redis://127.0.0.1:1/3",
        "redis-sentinel://127.0.0.1:1/?sentinelMasterId=mymaster",
        "rediss-sentinel://127.0.0.1:1?sentinelMasterId=mymaster",
    })
    void theParametersLettuceReads_areAccepted(String store) {
        gate(store).close();
    }

    /**
     * A scheme no store takes, with leapgate-redis on the class path: the message says which schemes
     * it takes, rather than sending the user to add the module that is already there.
     */
    @Test
    void aSchemeNoStoreTakes_withTheRedisModulePresent_namesItsSchemes_notTheModuleToAdd() {
        ConfigException e = catchThrowableOfType(
                ConfigException.class, () -> gate("http://redis.internal:6379").close());

        assertThat(e).isNotNull();
        assertThat(e.problems())
                .containsExactly("store = http://redis.internal:6379: no shared store for scheme 'http' on the class"
                        + " path; leapgate-redis, which is there, takes redis://, rediss://, redis-sentinel://,"
                        + " rediss-sentinel://, redis-cluster:// and rediss-cluster://");
    }
}

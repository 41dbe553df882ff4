package dev.leapgate.redis;

import dev.leapgate.store.StoreSettings;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Redis's refusals mean for a store: some are not an outage but a store set up wrong (see
 * {@link RedisWindowStore}), which no retry mends, and one is a full Redis. A refusal of either
 * kind becomes a failure that names the {@code store} setting, its value and what to change
 * ({@link Misconfigured}, logged once per kind at ERROR under the store's logger, {@code
 * dev.leapgate.redis.RedisWindowStore}), or that says Redis is full ({@link Full}); any other
 * failure stays as it is.
 */
final class RedisErrors {

    private static final Logger LOG = LoggerFactory.getLogger(RedisWindowStore.class);

    private final StoreSettings settings;
    /** The store's key prefix, with its ':'. */
    private final String prefix;
    /** The key of the start's decision, which writes nothing ({@link RedisWindowStore#open}). */
    private final String startKey;
    /** The kinds of misconfiguration already logged, each logged once. */
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    RedisErrors(StoreSettings settings, String prefix, String startKey) {
        this.settings = settings;
        this.prefix = prefix;
        this.startKey = startKey;
    }

    /**
     * {@code failure}, or what Redis's error in it means for the store: see {@link RedisErrors}.
     * {@code keys} are the command's (null: none), which a {@code WRONGTYPE} names.
     */
    Throwable classified(Throwable failure, String[] keys) {
        Throwable refusal = RedisWindowStore.within(failure, t -> t instanceof RedisCommandExecutionException);
        String error = refusal == null ? null : refusal.getMessage();
        if (error == null || failure instanceof Misconfigured) {
            return failure;
        }
        String kind;
        String what;
        String scope = "every shared rule decides by its store-on-failure";
        if (error.contains("WRONGTYPE") && keys != null) {
            // Redis's error names no key: the script reads KEYS[1] (and KEYS[2], the previous shape's).
            kind = "WRONGTYPE";
            what = (keys.length == 1 ? "the key " + keys[0] : "one of the keys " + String.join(", ", keys))
                    + " holds a value of another type than the store's: another application writes keys under the"
                    + " store's key prefix (store-key-prefix = '" + settings.keyPrefix() + "'); give the store a"
                    + " prefix of its own, or delete such keys";
            scope = keys[0].equals(prefix + "instances")
                    ? "the instances are not counted (store-instances = auto): each counts itself alone,"
                            + " and a local share is the whole limit"
                    : "every decision on such a key goes by its rule's store-on-failure";
        } else if (error.startsWith("NOAUTH")) {
            kind = "NOAUTH";
            what = "Redis requires a password and the URI gives none (redis://[user:]password@host:port)";
        } else if (error.startsWith("WRONGPASS") || error.contains("without any password configured")) {
            kind = "WRONGPASS";
            what = "Redis refused the user name or password of the URI";
        } else if (keys != null && refusedForKeys(error)) {
            // Refused for its keys, not its command: an ACL key pattern narrower than the prefix.
            // Redis's error names no key, and decides every key the user may use.
            kind = "NOPERM-KEYS";
            what = "the URI's Redis user may not use "
                    + (keys.length == 1 ? "the key " + keys[0] : "one of the keys " + String.join(", ", keys))
                    + ": its ACL key patterns do not cover the store's key prefix (store-key-prefix = '"
                    + settings.keyPrefix() + "'); allow it the keys ~" + prefix + "*";
            scope = "every decision on a key it may not use goes by its rule's store-on-failure"
                    + (keys[0].equals(prefix + "instances")
                            ? ", and the instances are not counted (store-instances = auto): each counts itself"
                                    + " alone, and a local share is the whole limit"
                            : "");
        } else if (error.startsWith("NOPERM")
                || error.contains("-NOPERM")
                || error.contains("The user executing the script can't") // refused within the script
                || error.contains("ACL failure in script")) { // so worded by Redis 7
            kind = "NOPERM";
            what = "the URI's Redis user may not do what the store needs: run its scripts (EVALSHA, EVAL,"
                    + " SCRIPT LOAD) on the keys " + prefix + "* (GET, SET, TIME; ZADD, ZREMRANGEBYSCORE,"
                    + " PEXPIRE and ZCARD on " + prefix + "instances)";
        } else if ((error.startsWith("MOVED ") || error.startsWith("ASK "))
                && !settings.uri().getScheme().endsWith("-cluster")) {
            // A node of a Redis Cluster named as one Redis: it decides the keys of its own slots,
            // and sends the others to the node that serves them, which a redis:// client does not
            // follow. Each such key's decisions fail, not the node's: no outage.
            kind = "MOVED";
            what = "the URI names one node of a Redis Cluster, which serves only some of the keys and sends the"
                    + " others to other nodes; name the cluster: "
                    + settings.uri().getScheme() + "-cluster://host:port[,host:port]";
            scope = "every decision on a key another node serves goes by its rule's store-on-failure";
        } else if (error.contains("READONLY") && !settings.uri().getScheme().contains("-")) {
            // Not through a Sentinel or a Redis Cluster: there a master just demoted in a failover
            // may answer so for a moment, and the client finds the new one.
            kind = "READONLY";
            what = "the URI names a read-only replica; the store writes, and needs the master"
                    + " (redis-sentinel:// finds it)";
        } else if (UNKNOWN_SCRIPT_COMMAND.matcher(error).find()) {
            // A Sentinel answers so (6.2: "ERR unknown command `EVALSHA`, with args ...", 7: in
            // quotes): a redis:// URI with a Sentinel's port, the usual slip for redis-sentinel://.
            kind = "UNKNOWN-COMMAND";
            String scheme = settings.uri().getScheme();
            what = "the server does not know the commands the store's scripts need (EVALSHA, EVAL): a Redis"
                    + " Sentinel answers so, and a " + scheme + ":// URI names a Redis, not a Sentinel; to reach"
                    + " the master a Sentinel watches, use " + scheme.replaceFirst("-.*", "")
                    + "-sentinel://host:port?sentinelMasterId=<the master's name>";
            // Its arguments, a client's key among them, say nothing of the mistake.
            int arguments = error.indexOf(", with args");
            error = arguments < 0 ? error : error.substring(0, arguments);
        } else if (error.contains("DB index is out of range")) {
            // Refused at the connection's SELECT: it looked like a Redis that is down ("Unable to connect").
            kind = "DATABASE";
            what = "the URI's database "
                    + RedisURI.create(settings.uri().toString()).getDatabase()
                    + " is not one this Redis has (its databases setting, 16 by default: 0 to 15)";
        } else if (error.contains("ERR Leapgate: Redis's clock")) {
            kind = "CLOCK";
            what = "the server's clock is wrong";
        } else if (error.contains("OOM command not allowed")) {
            // Within a script Redis's answer comes wrapped ("ERR Error running script (call to
            // f_<sha>): @user_script:89: ... -OOM ..."): shown from the OOM on.
            return new Full(
                    "store = " + settings.shownUri() + ": Redis is full (maxmemory): it refuses the writes that"
                            + " count admissions and refunds until keys expire; raise maxmemory (a shared"
                            + " per-client rule's window takes about 150 B per client) ("
                            + error.substring(error.indexOf("OOM command not allowed"))
                                    .strip() + ")",
                    failure);
        } else {
            return failure;
        }
        if (keys != null && keys[0].equals(startKey) && (kind.equals("WRONGTYPE") || kind.equals("NOPERM-KEYS"))) {
            // The start's decision: a refusal of its key alone says nothing of the rules' keys, and
            // logged, it would take the one message of its kind that a refused rule key should have.
            LOG.debug("Leapgate Redis store {}: the start's decision was refused ({})", settings.shownUri(), error);
            return new Misconfigured(error, failure, true);
        }
        return misconfigured(kind, what, error, scope, failure);
    }

    /** Redis's answer to a script command it does not know (a Sentinel's), in the words of 6.2 and 7. */
    private static final Pattern UNKNOWN_SCRIPT_COMMAND =
            Pattern.compile("unknown command [`'](evalsha|eval|script)[`']", Pattern.CASE_INSENSITIVE);

    /**
     * Whether Redis's {@code error} refuses a command for its keys (an ACL key pattern that does not
     * cover them), not for the command itself ("no permissions to run the 'evalsha' command"), in
     * the words of Redis 6.2 and 7: "no permissions to access one of the keys used as arguments",
     * "No permissions to access a key", "... to access the 'k' key", and within a script "can't
     * access at least one of the keys".
     */
    static boolean refusedForKeys(String error) {
        if (error.contains("to run the")) {
            return false;
        }
        return error.contains("to access one of the keys")
                || error.contains("to access a key")
                || error.contains("access at least one of the keys")
                || error.contains("to access the '") && error.contains("' key");
    }

    /**
     * A {@link Misconfigured} failure of {@code kind} (logged at ERROR once per kind, and a {@code
     * WRONGTYPE} once per scope: another application's value at the instances key and at a rule's
     * key are two mistakes, each with its own harm; a user refused the instances key is told there
     * what that means for the rules' keys too): {@code what} is wrong and what to change, {@code
     * error} what the server said, {@code scope} what decides meanwhile.
     */
    Misconfigured misconfigured(String kind, String what, String error, String scope, Throwable failure) {
        String message = "store = " + settings.shownUri() + ": " + what + " (" + error + ")";
        if (logged.add(kind.equals("WRONGTYPE") ? kind + " " + scope : kind)) {
            LOG.error(
                    "Leapgate Redis store: {}. A configuration error, not an outage: it will not pass by itself, and"
                            + " until the setting or Redis is changed {}",
                    message,
                    scope);
        }
        return new Misconfigured(
                message, failure, kind.equals("WRONGTYPE") || kind.equals("NOPERM-KEYS") || kind.equals("MOVED"));
    }

    /**
     * A failure the store named itself, shown as its message alone (it names the store and what to
     * change; the rule's switch message and the failure policy show it as it is).
     */
    abstract static class Named extends IllegalStateException {
        Named(String message, Throwable cause) {
            super(message, cause);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }

    /** A failure no retry mends: the store is set up wrong. */
    static final class Misconfigured extends Named {
        /**
         * Whether Redis answered the command, but for its key alone ({@code WRONGTYPE}, a {@code
         * NOPERM} for a key the user may not use, or a cluster node's {@code MOVED} for a key
         * another node serves): not a failure of Redis, which the circuit breaker does not count
         * ({@link RedisWindowStore}).
         */
        final boolean oneKey;

        Misconfigured(String message, Throwable cause, boolean oneKey) {
            super(message, cause);
            this.oneKey = oneKey;
        }
    }

    /**
     * Redis is full ({@code maxmemory}, with a policy that evicts nothing): it refuses a script at
     * its first write, so every decision that would admit and every refund fails, while rejections
     * (which write nothing) are answered. Not an outage (the circuit breaker does not count it, see
     * {@link RedisWindowStore}) and not a misconfiguration (it passes when keys expire): the rule's failure
     * policy decides, and its switch message, logged once per switch, is this message.
     */
    static final class Full extends Named {
        Full(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

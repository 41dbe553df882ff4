package dev.leapgate.config;

import dev.leapgate.Clock;
import dev.leapgate.rule.RuleSet;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rules file that a gate follows: when the file changes, its rules replace the ones in force; when the new file is invalid, the previous rules stay in force and the problems are
 * logged at WARN (also when {@link #reload()} finds it, which throws them too).
 *
 * <p>No watcher thread: {@link #maybeReload()} is called on the request path and looks at the file
 * at most once per interval; the one request that looks pays for reading the file (a rules file
 * is small; a parse only when it changed). So nothing that could block that request or fill the
 * heap is read: a directory, a device such as {@code /dev/zero}, a named pipe or a file larger than
 * 1 MiB is refused unopened or unfinished, as an unreadable file. {@link #reload()} checks now, for
 * an operator or a management endpoint.
 *
 * <p>A change is different content (a SHA-256 digest of the file's bytes): a modification time
 * cannot tell two versions written within one tick of the file system's clock, nor a version
 * copied with its old time. A file rejected once is not parsed again until it changes again. A file
 * back to the version in force (written back, or there again after it was missing, empty or a
 * directory for a moment) is no change: nothing is applied, and the last error is cleared.
 *
 * <p>Concurrency: the next check time is claimed by CAS, so one thread checks per interval; the
 * stamps of the last file seen and of the rules in force are guarded by a lock, held only while
 * checking. A request thread never waits for it: if {@link #reload()} is checking (a management
 * endpoint), the request's check is skipped, since that one reads the file as it is now.
 */
public final class ReloadingRules {

    private static final Logger LOG = LoggerFactory.getLogger(ReloadingRules.class);

    /** The size that the message of a file too large gives ("is 1048577 bytes, larger than"). */
    private static final Pattern SIZE = Pattern.compile("\\d+ bytes, ");

    /** How the stamp of a file that cannot be read begins; a digest never does. */
    private static final String UNREADABLE = "unreadable: ";

    private final Path file;
    private final long intervalNanos;
    private final Clock clock;
    private final OriginSource origin;
    private final Consumer<RuleSet> apply;
    private final AtomicLong nextCheckNanos;
    private final UnaryOperator<RuleSet> adjust;
    private final ReentrantLock checking = new ReentrantLock();
    private String stamp; // guarded by checking: the version last seen, applied or rejected
    private String inForce; // guarded by checking: the version whose rules are in force
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private volatile Instant lastApplied; // null until a change is applied
    private volatile String lastError; // null unless the last changed version was rejected

    /**
     * Follows {@code file}, whose rules are already in force: when it changes, its rules go through
     * {@code adjust}, then to {@code apply} (the gate's {@code update}). With {@code adjust} an
     * adapter adds the rules it defines in code (annotations), so that a reload replaces only the
     * file's rules; if it throws an {@link IllegalArgumentException} (a rule name of the file clashes
     * with one of the code's), the file is treated as invalid.
     *
     * @param interval how often to look; {@link Duration#ZERO} only on {@link #reload()}
     * @param origin who a request is from, which decides what the file's exempt and deny can match
     */
    public ReloadingRules(
            Path file,
            Duration interval,
            Clock clock,
            OriginSource origin,
            Consumer<RuleSet> apply,
            UnaryOperator<RuleSet> adjust) {
        this(file, stampOf(file), interval, clock, origin, apply, adjust);
    }

    /**
     * As the other constructor, for a file whose rules in force were read from the content {@code
     * loaded} stamps ({@link #load}): a change made since that read is applied at the first check.
     */
    public ReloadingRules(
            Loaded loaded,
            Path file,
            Duration interval,
            Clock clock,
            OriginSource origin,
            Consumer<RuleSet> apply,
            UnaryOperator<RuleSet> adjust) {
        this(file, Objects.requireNonNull(loaded, "loaded").stamp, interval, clock, origin, apply, adjust);
    }

    private ReloadingRules(
            Path file,
            String stamp,
            Duration interval,
            Clock clock,
            OriginSource origin,
            Consumer<RuleSet> apply,
            UnaryOperator<RuleSet> adjust) {
        this.adjust = Objects.requireNonNull(adjust, "adjust");
        this.file = Objects.requireNonNull(file, "file");
        this.intervalNanos = Objects.requireNonNull(interval, "interval").toNanos();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.origin = Objects.requireNonNull(origin, "origin");
        this.apply = Objects.requireNonNull(apply, "apply");
        this.stamp = stamp;
        // A file unreadable when first read: no version of it is in force yet.
        this.inForce = stamp.startsWith(UNREADABLE) ? null : stamp;
        this.nextCheckNanos = new AtomicLong(clock.nanoTime() + intervalNanos);
    }

    /**
     * Notes that rules not read from the file replaced the ones in force (the application's {@code
     * update}): no version of the file is in force, so that the next version the file changes to
     * is applied, also the one that was in force before. Not for the {@code apply} of a reload.
     */
    public void replacedElsewhere() {
        checking.lock();
        try {
            inForce = null;
        } finally {
            checking.unlock();
        }
    }

    /** The rules of a file and the stamp of the content they were read from, read once. */
    public record Loaded(RuleSet rules, String stamp) {}

    /**
     * Reads a rules file once, as {@link ConfigParser#readRulesFile(Path, OriginSource)} does, and
     * stamps the very bytes its rules come from.
     *
     * @throws ConfigException naming the file if it cannot be read, or with every problem found
     */
    public static Loaded load(Path file, OriginSource origin) {
        byte[] content = ConfigParser.readRulesBytes(file);
        return new Loaded(ConfigParser.parseRulesFile(file, content, origin), stampOf(content));
    }

    public Path file() {
        return file;
    }

    /** Checks the file if the interval has passed since the last check; cheap otherwise. */
    public void maybeReload() {
        if (intervalNanos == 0) {
            return;
        }
        long now = clock.nanoTime();
        long next = nextCheckNanos.get();
        if (now - next < 0 || !nextCheckNanos.compareAndSet(next, now + intervalNanos)) {
            return;
        }
        if (!checking.tryLock()) {
            return; // a reload is checking the file now, for an operator
        }
        try {
            check();
        } catch (ConfigException e) {
            // logged where it was rejected
        } finally {
            checking.unlock();
        }
    }

    /**
     * Checks the file now and applies it if it changed.
     *
     * @return whether new rules were applied
     * @throws ConfigException if the file changed but is unreadable or invalid; the previous rules
     *     stay in force, and the problems are logged as a request's check logs them
     */
    public boolean reload() {
        checking.lock();
        try {
            return check();
        } finally {
            checking.unlock();
        }
    }

    /** {@link #reload()}, with the lock held. */
    private boolean check() {
        // One read: the stamp and the rules come from the same bytes, so that a version the check
        // saw is never marked as seen while another version was parsed.
        byte[] content = null;
        ConfigException unreadable = null;
        String current;
        try {
            content = ConfigParser.readRulesBytes(file);
            current = stampOf(content);
        } catch (ConfigException e) {
            unreadable = e;
            current = unreadableStamp(e);
        }
        if (current.equals(stamp)) {
            return false;
        }
        stamp = current; // a broken file is reported once, not on every check
        if (current.equals(inForce)) {
            // Back to the rules in force after a version that was rejected: nothing to apply again.
            lastError = null;
            LOG.info("Leapgate rules file {} holds the rules in force again", file);
            return false;
        }
        try {
            if (unreadable != null) {
                throw unreadable;
            }
            apply.accept(adjust.apply(ConfigParser.parseRulesFile(file, content, origin)));
        } catch (ConfigException e) {
            throw rejected(e);
        } catch (IllegalArgumentException e) {
            throw rejected(new ConfigException(file.toString(), List.of(e.getMessage())));
        } catch (VirtualMachineError e) {
            // Out of memory or stack while the rules were made or after they came into force:
            // which version is in force is not known, so the next check applies the file's.
            stamp = null;
            inForce = null;
            throw e;
        } catch (Exception | LinkageError e) {
            // Not a problem of the file that the parser knows (also a checked exception nothing
            // declares, or a class missing): still a version not in force, and reported as such
            // rather than thrown at the request that happened to check.
            ConfigException problem =
                    new ConfigException(file.toString(), List.of("its rules could not be applied: " + e));
            problem.initCause(e);
            throw rejected(problem);
        }
        inForce = current;
        applied.incrementAndGet();
        lastApplied = Instant.now();
        lastError = null;
        LOG.info("Leapgate applied rules file {}", file);
        return true;
    }

    private ConfigException rejected(ConfigException e) {
        LOG.warn("Leapgate keeps its previous rules: {}", e.getMessage(), e.getCause());
        rejected.incrementAndGet();
        lastError = e.getMessage();
        return e;
    }

    /** Changed versions of the file applied since it was first read. */
    public long appliedReloads() {
        return applied.get();
    }

    /** Changed versions of the file rejected (unreadable or invalid) since it was first read. */
    public long rejectedReloads() {
        return rejected.get();
    }

    /** When a changed version was last applied (wall-clock time); empty if none was yet. */
    public Optional<Instant> lastApplied() {
        return Optional.ofNullable(lastApplied);
    }

    /**
     * Why the last changed version was rejected; empty if it was applied, the file is back to the
     * version in force, or none changed yet.
     */
    public Optional<String> lastError() {
        return Optional.ofNullable(lastError);
    }

    private static String stampOf(Path file) {
        try {
            return stampOf(ConfigParser.readRulesBytes(file));
        } catch (ConfigException e) {
            return unreadableStamp(e);
        }
    }

    /**
     * The stamp of a file that cannot be read: the same reason, the same stamp, reported once. A
     * file's size is left out, so that a file growing past the limit is reported once, not at every
     * check while it grows.
     */
    private static String unreadableStamp(ConfigException e) {
        return UNREADABLE + SIZE.matcher(e.getMessage()).replaceAll("");
    }

    private static String stampOf(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}

package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leapgate.ManualClock;
import dev.leapgate.Origin;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.rule.FlowRule;
import dev.leapgate.testing.Configs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReloadingRulesTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock();
    private final Origin client = Origin.ip(IpAddress.parse("203.0.113.1"), 64);
    private int version;

    private Path write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        // Each version gets its own modification time, whatever the file system's granularity.
        Files.setLastModifiedTime(
                file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(++version)));
        return file;
    }

    /** A gate of the rules file, which it reloads every 5 s of the test's clock. */
    private HttpGate gateReloading(Path file) {
        return HttpGate.builder(
                        ConfigParser.parse(Map.of("rules-file", file.toString(), "reload-interval", "5s"), "test"))
                .clock(clock)
                .build();
    }

    private HttpGate gateFor(Path file) {
        return HttpGate.builder(Configs.withRules(ConfigParser.readRulesFile(file)))
                .clock(clock)
                .build();
    }

    @Test
    void aChangeWithTheSameSizeAndModificationTime_isApplied() throws IOException {
        FileTime time = FileTime.from(Instant.parse("2026-01-01T00:00:00Z"));
        Path file = dir.resolve("rules.properties");
        Files.writeString(file, "rule.a.match=/a\nrule.a.limit=2/1m\n");
        Files.setLastModifiedTime(file, time);
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ofSeconds(5), clock, OriginSource.ip(), gate::update, UnaryOperator.identity());

        // Written again within one tick of the file system's clock, or copied with its old time.
        Files.writeString(file, "rule.a.match=/a\nrule.a.limit=3/1m\n");
        Files.setLastModifiedTime(file, time);

        assertThat(reloading.reload()).isTrue();
        assertThat(gate.rules().rules().get(0).limit()).isEqualTo(3);
        assertThat(reloading.reload()).as("nothing changed since").isFalse();
    }

    /**
     * A change made while the gate is being built (here by a check, standing in for anything slow
     * there, such as connecting to a store) is applied at the first check: the gate's rules and
     * the stamp that tells a change come from one read of the file.
     */
    @Test
    void aChangeMadeWhileTheGateIsBuilt_isAppliedAtTheFirstCheck() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1000/1m\n");
        boolean[] changed = {false};
        HttpGate gate = HttpGate.builder(
                        ConfigParser.parse(Map.of("rules-file", file.toString(), "reload-interval", "1s"), "test"))
                .clock(clock)
                .check(rules -> {
                    if (!changed[0]) {
                        changed[0] = true;
                        try {
                            write(file, "rule.a.match=/a\nrule.a.limit=1/1m\n");
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                    return List.of();
                })
                .build();
        assertThat(gate.rules().rules().get(0).limit())
                .as("as read before the change")
                .isEqualTo(1000);

        assertThat(gate.rulesFile().orElseThrow().reload()).isTrue();
        assertThat(gate.rules().rules().get(0).limit()).isEqualTo(1);
    }

    @Test
    void changedFile_isAppliedOnTheFirstCheckAfterTheInterval_notBefore() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ofSeconds(5), clock, OriginSource.ip(), gate::update, UnaryOperator.identity());

        write(file, "rule.a.match=/a\nrule.a.limit=1/1m\nrule.b.match=/b\nrule.b.limit=7/1m\n");
        clock.advance(Duration.ofSeconds(4));
        reloading.maybeReload();
        assertThat(gate.rules().rules()).hasSize(1);

        clock.advance(Duration.ofSeconds(1));
        reloading.maybeReload();
        assertThat(gate.rules().rules()).extracting(FlowRule::name).containsExactly("a", "b");
    }

    /** A request thread never waits while an operator's reload reads and applies the file. */
    @Test
    void aRequestsCheck_isSkipped_notBlocked_whileAReloadIsUnderWay() throws Exception {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        java.util.concurrent.CountDownLatch applying = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        ReloadingRules reloading = new ReloadingRules(
                file,
                Duration.ofSeconds(5),
                clock,
                OriginSource.ip(),
                rules -> {
                    applying.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    gate.update(rules);
                },
                UnaryOperator.identity());
        write(file, "rule.a.match=/a\nrule.a.limit=2/1m\n");
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        java.util.concurrent.CompletableFuture<Boolean> operator =
                java.util.concurrent.CompletableFuture.supplyAsync(reloading::reload, threads);
        try {
            assertThat(applying.await(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();
            clock.advance(Duration.ofSeconds(5));
            java.util.concurrent.CompletableFuture<Void> request =
                    java.util.concurrent.CompletableFuture.runAsync(reloading::maybeReload, threads);
            assertThat(request)
                    .as("the request's check returns while the reload holds the file")
                    .succeedsWithin(Duration.ofSeconds(5));
        } finally {
            release.countDown();
            threads.shutdown();
        }
        assertThat(operator.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(gate.rules().rules().get(0).limit()).isEqualTo(2);
    }

    @Test
    void brokenFile_keepsThePreviousRules_andIsReportedWithItsProblems() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ofSeconds(1), clock, OriginSource.ip(), gate::update, UnaryOperator.identity());

        write(file, "rule.a.match=/a\nrule.a.limit=1/1 m\nrule.a.limt=3\n");

        assertThatThrownBy(reloading::reload)
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).hasSize(2));
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
        clock.advance(Duration.ofSeconds(1));
        reloading.maybeReload(); // logged, not thrown; not parsed again until it changes
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);

        write(file, "rule.a.match=/a\nrule.a.limit=2/1m\n");
        assertThat(reloading.reload()).isTrue();
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(2L);
    }

    @Test
    void reload_keepsTheCountersOfRulesThatDidNotChange() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ZERO, clock, OriginSource.ip(), gate::update, UnaryOperator.identity());
        assertThat(gate.enter("GET", "/a", client).admitted())
                .as("the limit's one request")
                .isTrue();

        write(file, "# a comment changes the file, not the rule\nrule.a.match=/a\nrule.a.limit=1/1m\n");
        assertThat(reloading.reload()).isTrue();

        assertThat(gate.enter("GET", "/a", client).admitted())
                .as("the window still holds the request made before the reload")
                .isFalse();
    }

    @Test
    void unchangedFile_isNotReapplied_andZeroIntervalNeverChecksOnItsOwn() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ZERO, clock, OriginSource.ip(), gate::update, UnaryOperator.identity());

        assertThat(reloading.reload()).isFalse();
        write(file, "rule.a.match=/a\nrule.a.limit=5/1m\n");
        clock.advance(Duration.ofHours(1));
        reloading.maybeReload();
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
    }

    @Test
    void deletedFile_keepsTheRules() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = new ReloadingRules(
                file, Duration.ZERO, clock, OriginSource.ip(), gate::update, UnaryOperator.identity());

        Files.delete(file);

        assertThatThrownBy(reloading::reload)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rules.properties");
        assertThat(gate.rules().rules()).hasSize(1);
    }

    private ReloadingRules following(Path file, HttpGate gate) {
        return new ReloadingRules(
                file, Duration.ofSeconds(5), clock, OriginSource.ip(), gate::update, UnaryOperator.identity());
    }

    /** The check a request makes once the interval has passed: it must neither throw nor block. */
    private void requestChecks(ReloadingRules reloading) {
        clock.advance(Duration.ofSeconds(5));
        assertTimeoutPreemptively(Duration.ofSeconds(10), reloading::maybeReload);
    }

    @Test
    void aFileThatNeverEnds_isRefusedUnread_andTheRulesStay() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = following(file, gate);
        Files.delete(file);
        Files.createSymbolicLink(file, Path.of("/dev/zero"));

        requestChecks(reloading); // it read until the heap was full: OutOfMemoryError at the request

        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
        assertThat(reloading.rejectedReloads()).isEqualTo(1);
        assertThat(reloading.lastError())
                .hasValueSatisfying(error ->
                        assertThat(error).contains("cannot read rules file " + file + ": is not a regular file"));
    }

    @Test
    void aNamedPipe_doesNotBlockTheRequestThatChecks() throws Exception {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = following(file, gate);
        Files.delete(file);
        Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).start();
        boolean made = mkfifo.waitFor() == 0;
        String why = "mkfifo (GNU coreutils) makes the named pipe this test reads";
        if (System.getenv("CI") != null) {
            assertThat(made).as(why).isTrue(); // under CI a check that cannot run fails, never skips
        }
        assumeTrue(made, why);

        requestChecks(reloading); // opening the pipe waited for a writer, for ever

        assertThat(gate.rules().rules()).hasSize(1);
        assertThat(reloading.lastError())
                .hasValueSatisfying(error -> assertThat(error).contains("is not a regular file"));
    }

    @Test
    void aHugeFile_isRefused_andTheRulesStay_reportedOnceWhileItGrows() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = following(file, gate);
        try (RandomAccessFile huge = new RandomAccessFile(file.toFile(), "rw")) {
            huge.setLength((1 << 20) + 1); // one byte over the 1 MiB allowed; sparse, it costs no disk
        }

        requestChecks(reloading);

        assertThat(gate.rules().rules()).hasSize(1);
        assertThat(reloading.lastError())
                .hasValueSatisfying(error -> assertThat(error)
                        .contains("cannot read rules file " + file + ": is 1048577 bytes, larger than the 1 MiB"));
        try (RandomAccessFile huge = new RandomAccessFile(file.toFile(), "rw")) {
            huge.setLength((1 << 20) + 4096); // a log file named by mistake, still growing
        }
        requestChecks(reloading);
        assertThat(reloading.rejectedReloads()).as("reported once").isEqualTo(1);
    }

    @Test
    void aDirectoryInsteadOfTheFile_isReportedOnce_andAFileThereAgainApplies() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = following(file, gate);
        Files.delete(file);
        Files.createDirectory(file);

        requestChecks(reloading);
        requestChecks(reloading);

        assertThat(reloading.rejectedReloads()).as("reported once").isEqualTo(1);
        assertThat(reloading.lastError())
                .hasValueSatisfying(
                        error -> assertThat(error).contains("cannot read rules file " + file + ": is a directory"));
        Files.delete(file);
        write(file, "rule.a.match=/a\nrule.a.limit=4/1m\n");
        requestChecks(reloading);
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(4L);
        assertThat(reloading.lastError()).isEmpty();
    }

    @Test
    void rulesThatFailToApply_doNotFailTheRequestThatChecked_andAreReportedOnce() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        boolean[] failing = {true};
        ReloadingRules reloading = new ReloadingRules(
                file,
                Duration.ofSeconds(5),
                clock,
                OriginSource.ip(),
                rules -> {
                    if (failing[0]) {
                        throw new IllegalStateException("cannot compile these rules");
                    }
                    gate.update(rules);
                },
                UnaryOperator.identity());
        write(file, "rule.a.match=/a\nrule.a.limit=2/1m\n");

        requestChecks(reloading); // the exception was thrown at the request
        requestChecks(reloading);

        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
        assertThat(reloading.rejectedReloads()).isEqualTo(1);
        assertThat(reloading.lastError())
                .hasValueSatisfying(error -> assertThat(error)
                        .contains(file.toString())
                        .contains("could not be applied")
                        .contains("cannot compile these rules"));

        failing[0] = false;
        write(file, "rule.a.match=/a\nrule.a.limit=3/1m\n");
        requestChecks(reloading);
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(3L);
        assertThat(reloading.lastError()).isEmpty();
    }

    /**
     * A rules listener (a metrics binder) that throws an Error after the new rules are in force (a
     * class its library misses): the Error reached the request that checked, and the reloader took
     * the version for one not applied, so that writing the previous one back changed nothing.
     */
    @Test
    void aListenerThatThrowsAnError_failsNoRequest_andTheReloadIsApplied() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateReloading(file);
        gate.addRulesListener(rules -> {
            throw new NoClassDefFoundError("io/micrometer/core/instrument/Meter");
        });
        ReloadingRules reloading = gate.rulesFile().orElseThrow();

        write(file, "rule.a.match=/a\nrule.a.limit=7/1m\n");
        requestChecks(reloading);
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(7L);
        assertThat(reloading.appliedReloads()).isEqualTo(1);

        write(file, "rule.a.match=/a\nrule.a.limit=1/1m\n");
        requestChecks(reloading);
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
        assertThat(reloading.appliedReloads()).isEqualTo(2);
    }

    /**
     * A stack overflow in a listener, once the new rules were in force: the reloader, which cannot
     * tell which version is in force, took the previous one for it, and writing that one back
     * changed nothing; now the next check applies what the file holds.
     */
    @Test
    void aFatalErrorAfterTheRulesAreInForce_leavesTheNextCheckToApplyTheFile() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1000/1m\n");
        HttpGate gate = gateReloading(file);
        boolean[] overflow = {true};
        gate.addRulesListener(rules -> {
            if (overflow[0]) {
                overflow[0] = false;
                throw new StackOverflowError("deep listener");
            }
        });
        ReloadingRules reloading = gate.rulesFile().orElseThrow();

        write(file, "rule.a.match=/a\nrule.a.limit=1/1m\n");
        assertThatThrownBy(reloading::reload).isInstanceOf(StackOverflowError.class);
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);

        write(file, "rule.a.match=/a\nrule.a.limit=1000/1m\n");
        assertThat(reloading.reload()).isTrue();
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1000L);
    }

    @Test
    void aRequestGivenByItsParts_checksTheFileToo() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateReloading(file);
        write(file, "rule.a.match=/a\nrule.a.limit=2/1m\n");
        clock.advance(Duration.ofSeconds(5));

        assertThat(gate.enter("GET", "/a", client).admitted()).isTrue();

        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(2L);
        assertThat(gate.enter("GET", "/a", client).admitted())
                .as("the second request of the new limit")
                .isTrue();
    }

    /**
     * A file deleted, emptied or replaced for a moment (a copy that deletes first, an editor's save
     * caught halfway, a volume remounted) and then back as it was holds the rules in force: nothing
     * new is applied, and nothing is wrong any more.
     */
    @Test
    void theVersionInForce_backAfterARejectedOne_isNotAppliedAgain() throws IOException {
        String inForce = "rule.a.match=/a\nrule.a.limit=1/1m\n";
        Path file = write(dir.resolve("rules.properties"), inForce);
        HttpGate gate = gateFor(file);
        int[] updates = {0};
        gate.addRulesListener(rules -> updates[0]++);
        ReloadingRules reloading = following(file, gate);

        Files.delete(file);
        requestChecks(reloading);
        write(file, inForce);
        assertThat(reloading.reload()).as("no new rules").isFalse();

        write(file, ""); // truncated, caught before it is written again
        requestChecks(reloading);
        write(file, inForce);
        requestChecks(reloading);

        assertThat(updates[0]).as("rules replaced").isZero();
        assertThat(reloading.appliedReloads()).isZero();
        assertThat(reloading.lastApplied()).isEmpty();
        assertThat(reloading.rejectedReloads()).isEqualTo(2);
        assertThat(reloading.lastError())
                .as("the file holds the rules in force")
                .isEmpty();
    }

    private static String logged(Runnable action) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    /**
     * A version that an operator's reload (a management endpoint, or a sidecar that calls it when
     * the file changes) finds broken is logged as one a request finds: the request path reports a
     * rejected version once, so it would never be logged at all.
     */
    @Test
    void aVersionRejectedByAReload_isLoggedAtWarn_namingTheFile() throws IOException {
        Path file = write(dir.resolve("rules.properties"), "rule.a.match=/a\nrule.a.limit=1/1m\n");
        HttpGate gate = gateFor(file);
        ReloadingRules reloading = following(file, gate);
        write(file, "rule.a.match=/a\nrule.a.limit=1/1 m\n");

        String byReload = logged(() -> assertThatThrownBy(reloading::reload).isInstanceOf(ConfigException.class));
        String byRequest = logged(() -> requestChecks(reloading));

        assertThat(byReload)
                .contains("WARN")
                .contains("Leapgate keeps its previous rules: 1 problem in " + file)
                .contains("line 2: rule.a.limit");
        assertThat(byRequest).as("reported once").doesNotContain("keeps its previous rules");
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
    }
    /**
     * Rules the application put in force with {@code gate.update} are not the file's: a file
     * changed and then back to the version read before them (an operator's edit reverted after a
     * typo) was taken for the rules in force, and the application's rules stayed instead of the
     * file's.
     */
    @Test
    void theVersionReadBeforeAnUpdateInCode_backAfterARejectedOne_isApplied() throws IOException {
        String read = "rule.a.match=/a\nrule.a.limit=1/1m\n";
        Path file = write(dir.resolve("rules.properties"), read);
        HttpGate gate = HttpGate.builder(ConfigParser.parse(Map.of("rules-file", file.toString()), "test"))
                .clock(clock)
                .build();
        ReloadingRules reloading = gate.rulesFile().orElseThrow();
        gate.update(ConfigParser.parseRules("rule.a.match=/a\nrule.a.limit=100/1m\n", "code"));

        write(file, "rule.a.match=/a\nrule.a.limit=1/1 m\n");
        assertThatThrownBy(reloading::reload).isInstanceOf(ConfigException.class);
        write(file, read);

        assertThat(reloading.reload()).as("the file's rules applied").isTrue();
        assertThat(gate.rules().rules()).extracting(FlowRule::limit).containsExactly(1L);
    }
}

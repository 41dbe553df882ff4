package dev.leapgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leapgate.stats.StatsSnapshot;
import dev.leapgate.testing.JavaSnippets;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The README's "Using the core directly" snippets, compiled as written and run: four exports of
 * which two fail must be counted as two successes and two failures, in both forms the README
 * shows (the issue this guards against: a try-with-resources closes the entry before its catch
 * block runs, and the failures were once counted as successes).
 */
class ReadmeLimiterExampleTest {

    private static final List<String> SNIPPETS = JavaSnippets.of(JavaSnippets.document("README.md")).stream()
            .filter(s -> s.contains("class ReportExports")
                    || s.contains("class WithTryWithResources")
                    || s.contains("class LoginAttempts"))
            .toList();

    private static final Supplier<String> OK = () -> "report";
    private static final Supplier<String> BROKEN = () -> {
        throw new IllegalStateException("export failed");
    };

    @Test
    void readmeExample_countsFailedExportsAsFailures() throws Exception {
        assertThat(SNIPPETS).hasSize(3);
        ClassLoader loader = JavaSnippets.compile(SNIPPETS);
        Class<?> type = loader.loadClass("ReportExports");
        Object exports = type.getConstructor().newInstance();
        Method export = type.getMethod("export", Supplier.class);

        assertThat(export.invoke(exports, OK)).isEqualTo("report");
        assertThatThrownBy(() -> invoke(export, exports, BROKEN)).hasMessage("export failed");
        assertThat(export.invoke(exports, OK)).isEqualTo("report");
        assertThatThrownBy(() -> invoke(export, exports, BROKEN)).hasMessage("export failed");

        Field field = type.getDeclaredField("exports");
        field.setAccessible(true);
        Limiter limiter = (Limiter) field.get(exports);
        StatsSnapshot minute = limiter.stats().lastMinute();
        assertThat(minute.admitted()).isEqualTo(4);
        assertThat(minute.succeeded()).isEqualTo(2);
        assertThat(minute.failed()).isEqualTo(2);
        assertThat(minute.inFlight()).isZero();
    }

    @Test
    void readmeTryWithResourcesForm_countsFailuresAlthoughTheEntryClosesBeforeTheCatch() throws Exception {
        ClassLoader loader = JavaSnippets.compile(SNIPPETS);
        Method run = loader.loadClass("WithTryWithResources").getDeclaredMethod("run", Entry.class, Supplier.class);
        run.setAccessible(true);
        Limiter limiter = Limiter.builder("exports").concurrency(20).build();

        for (Supplier<String> work : List.of(OK, BROKEN, OK, BROKEN)) {
            Entry entry = (Entry) limiter.tryEnter();
            try {
                run.invoke(null, entry, work);
            } catch (InvocationTargetException expected) {
                assertThat(expected.getCause()).hasMessage("export failed");
            }
            assertThat(entry.isClosed()).isTrue();
        }

        StatsSnapshot minute = limiter.stats().lastMinute();
        assertThat(minute.succeeded()).isEqualTo(2);
        assertThat(minute.failed()).isEqualTo(2);
        assertThat(minute.inFlight()).isZero();
    }

    @Test
    void readmePerUserExample_allowsFiveAMinute_toEachUser() throws Exception {
        Class<?> type = JavaSnippets.compile(SNIPPETS).loadClass("LoginAttempts");
        java.lang.reflect.Constructor<?> constructor = type.getDeclaredConstructor();
        constructor.setAccessible(true);
        Object attempts = constructor.newInstance();
        Method mayTry = type.getDeclaredMethod("mayTry", String.class);
        mayTry.setAccessible(true);

        List<Object> alice = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            alice.add(mayTry.invoke(attempts, "alice"));
        }

        assertThat(alice).containsExactly(true, true, true, true, true, false);
        assertThat(mayTry.invoke(attempts, "bob")).isEqualTo(true);
    }

    private static Object invoke(Method method, Object target, Object arg) throws Throwable {
        try {
            return method.invoke(target, arg);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}

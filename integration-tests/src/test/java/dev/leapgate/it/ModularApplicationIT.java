package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small modular application ({@code module-info.java} requiring {@code dev.leapgate.core} and
 * {@code dev.leapgate.servlet}) compiles and runs with Leapgate's jars on the module path; and the
 * engine's packages stay closed to it: code that imports {@code dev.leapgate.internal} does not
 * compile. The jars are the build's own, copied to {@code target/module-path} by the build.
 */
class ModularApplicationIT {

    private static final Path MODULE_PATH = Path.of("target", "module-path").toAbsolutePath();

    private static final String MODULE_INFO = """
            module example.app {
                requires dev.leapgate.core;
                requires dev.leapgate.servlet;
                requires jakarta.servlet;
            }
            """;

    private static final String MAIN = """
            package example.app;

            import dev.leapgate.Limiter;
            import dev.leapgate.rule.WindowSpec;
            import dev.leapgate.servlet.LeapgateFilter;
            import jakarta.servlet.Filter;
            import java.time.Duration;

            public class Main {
                public static void main(String[] args) {
                    Limiter limiter = Limiter.builder("modular")
                            .rate(2, WindowSpec.of(Duration.ofMinutes(1)))
                            .build();
                    int admitted = 0;
                    for (int i = 0; i < 5; i++) {
                        admitted += limiter.tryAcquire() ? 1 : 0;
                    }
                    Filter filter = new LeapgateFilter();
                    System.out.println("admitted " + admitted + " of 5; filter " + filter.getClass().getName()
                            + " in module " + filter.getClass().getModule().getName()
                            + "; limiter in module " + Limiter.class.getModule().getName());
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void aModularApplication_compilesAndRunsOnTheModulePath() throws Exception {
        Path classes = compile(MAIN);

        String output = run(classes);

        assertThat(output)
                .contains("admitted 2 of 5")
                .contains("filter dev.leapgate.servlet.LeapgateFilter in module dev.leapgate.servlet")
                .contains("limiter in module dev.leapgate.core");
    }

    @Test
    void theEnginesPackages_areNotExported() throws Exception {
        String internal = MAIN.replace(
                        "import java.time.Duration;",
                        "import java.time.Duration;\nimport dev.leapgate.internal.counter.LeapCounter;")
                .replace(
                        "Filter filter = new LeapgateFilter();",
                        "Object c = LeapCounter.class;\nFilter filter = null;");

        CompileResult result = tryCompile(internal);

        assertThat(result.ok()).as("compiled against dev.leapgate.internal").isFalse();
        assertThat(result.diagnostics()).contains("package dev.leapgate.internal.counter is not visible");
    }

    private record CompileResult(boolean ok, String diagnostics, Path classes) {}

    private Path compile(String main) throws IOException {
        CompileResult result = tryCompile(main);
        assertThat(result.ok()).as(result.diagnostics()).isTrue();
        return result.classes();
    }

    private CompileResult tryCompile(String main) throws IOException {
        assertThat(MODULE_PATH.resolve("leapgate-core-" + projectVersion() + ".jar"))
                .as("the build copies Leapgate's jars to target/module-path before the integration tests")
                .exists();
        Path sources = dir.resolve("src");
        Files.createDirectories(sources.resolve("example/app"));
        Files.writeString(sources.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(sources.resolve("example/app/Main.java"), main);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = compiler.run(
                null,
                diagnostics,
                diagnostics,
                "--module-path",
                MODULE_PATH.toString(),
                "-d",
                classes.toString(),
                "-proc:none",
                sources.resolve("module-info.java").toString(),
                sources.resolve("example/app/Main.java").toString());
        boolean ok = status == 0;
        return new CompileResult(ok, diagnostics.toString(StandardCharsets.UTF_8), classes);
    }

    private static String run(Path classes) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(
                        java,
                        "--module-path",
                        MODULE_PATH + File.pathSeparator + classes,
                        "-m",
                        "example.app/example.app.Main")
                .redirectErrorStream(true)
                .start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("the application exits")
                    .isTrue();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.exitValue()).as(output).isZero();
            return output;
        } finally {
            process.destroyForcibly();
        }
    }

    private static String projectVersion() throws IOException {
        try (Stream<Path> jars = Files.list(MODULE_PATH)) {
            return jars.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("leapgate-core-") && n.endsWith(".jar"))
                    .map(n -> n.substring("leapgate-core-".length(), n.length() - ".jar".length()))
                    .findFirst()
                    .orElse("?");
        }
    }
}

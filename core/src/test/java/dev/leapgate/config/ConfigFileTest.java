package dev.leapgate.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration file ({@link ConfigParser#readConfigFile}, the JAX-RS provider's {@code
 * leapgate.config-file}) is refused as a rules file is when it is not one: read until the heap was
 * full ({@code /dev/zero}), or blocked the start for good (a named pipe), or said only "Input length
 * = 1" for a file saved in another encoding.
 */
class ConfigFileTest {

    @TempDir
    Path dir;

    @Test
    void aFile_isRead_withARelativeRulesFileFromItsDirectory() throws IOException {
        Files.writeString(dir.resolve("leapgate.properties"), "rule.a.match = /a\nrule.a.limit = 5/1s\n");

        LeapgateConfig config = ConfigParser.readConfigFile(Path.of("leapgate.properties"), dir);

        assertThat(config.rules().rules()).singleElement().satisfies(rule -> {
            assertThat(rule.limit()).isEqualTo(5);
            assertThat(rule.window().length()).isEqualTo(Duration.ofSeconds(1));
        });
    }

    @Test
    void aFileThatNeverEnds_isRefusedUnread() throws IOException {
        Path file = Files.createSymbolicLink(dir.resolve("leapgate.properties"), Path.of("/dev/zero"));

        assertThat(refusal(file))
                .isEqualTo("cannot read configuration file " + file
                        + ": is not a regular file (a device, a named pipe or a socket); leapgate.config-file names"
                        + " a file");
    }

    @Test
    void aNamedPipe_doesNotBlockTheStart() throws Exception {
        Path file = dir.resolve("leapgate.properties");
        Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();

        // Opening the pipe would wait for a writer that never comes.
        CompletableFuture<String> refused = CompletableFuture.supplyAsync(() -> refusal(file));

        assertThat(refused.get(10, TimeUnit.SECONDS)).contains(": is not a regular file");
    }

    @Test
    void aDirectory_orALargeFile_isRefused_sayingWhat() throws IOException {
        assertThat(refusal(dir))
                .isEqualTo("cannot read configuration file " + dir + ": is a directory;"
                        + " leapgate.config-file names a file");

        Path large = dir.resolve("large.properties");
        Files.write(large, new byte[ConfigParser.MAX_RULES_FILE_BYTES + 1]);
        assertThat(refusal(large))
                .isEqualTo("cannot read configuration file " + large + ": is " + (ConfigParser.MAX_RULES_FILE_BYTES + 1)
                        + " bytes, larger than the 1 MiB (" + ConfigParser.MAX_RULES_FILE_BYTES
                        + " bytes) a configuration file may have");
    }

    @Test
    void aFileInAnotherEncoding_namesTheLineAndTheByte() throws IOException {
        Path file = dir.resolve("leapgate.properties");
        Files.write(
                file, "rule.a.match = /a\n# caf\u00e9\nrule.a.limit = 5/1s\n".getBytes(StandardCharsets.ISO_8859_1));

        assertThat(refusal(file))
                .isEqualTo("cannot read configuration file " + file
                        + ": not valid UTF-8 (line 2, byte 0xE9); save it as UTF-8, or write the character as \\uXXXX");
    }

    private String refusal(Path file) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigParser.readConfigFile(file, dir));
        assertThat(e.problems()).hasSize(1);
        return e.problems().get(0);
    }
}

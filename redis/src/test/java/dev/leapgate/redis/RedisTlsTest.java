package dev.leapgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.Entry;
import dev.leapgate.Origin;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.http.HttpGate;
import dev.leapgate.net.IpAddress;
import dev.leapgate.stats.StoreStats;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rediss://}: a real Redis that speaks TLS only, with a self-signed certificate made for
 * the test. The store decides over TLS; and it checks the server's certificate by default, so a
 * certificate the JVM does not trust is refused (the failure policy decides) unless the URI says
 * {@code verifyPeer=NONE}.
 */
class RedisTlsTest {

    private static final String PASSWORD = "changeit";

    @TempDir
    static Path dir;

    private static RedisProcess redis;
    private HttpGate gate;
    private final Origin client = Origin.ip(IpAddress.parse("192.0.2.44"), 64);

    @BeforeAll
    static void start() throws Exception {
        Path keyStore = dir.resolve("redis.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "redis",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-dname",
                        "CN=127.0.0.1",
                        "-ext",
                        "SAN=ip:127.0.0.1",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        keyStore.toString(),
                        "-storepass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor()).as("keytool: %s", output).isZero();

        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        Path certificate = pem(
                dir.resolve("redis.crt"),
                "CERTIFICATE",
                store.getCertificate("redis").getEncoded());
        Path key = pem(
                dir.resolve("redis.key"),
                "PRIVATE KEY",
                store.getKey("redis", PASSWORD.toCharArray()).getEncoded());
        redis = RedisProcess.startTls(certificate, key);
    }

    private static Path pem(Path file, String type, byte[] der) throws Exception {
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return Files.writeString(file, "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n");
    }

    @AfterAll
    static void stop() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void closeGate() {
        if (gate != null) {
            gate.close();
        }
    }

    private HttpGate gate(String store) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("store", store);
        settings.put("store-timeout", "2s"); // a TLS handshake on a loaded CI machine
        settings.put("store-on-failure", "closed"); // only the shared window admits
        settings.put("rule.login.match", "POST /login");
        settings.put("rule.login.limit", "3/1m");
        settings.put("rule.login.scope", "per-origin");
        return HttpGate.builder(ConfigParser.parse(settings, "test")).build();
    }

    private int admitted(int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            if (gate.enter("POST", "/login", client) instanceof Entry entry) {
                entry.close();
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void overTls_theStoreDecides() {
        gate = gate("rediss://127.0.0.1:" + redis.port() + "?verifyPeer=NONE");

        assertThat(admitted(6)).as("3 of 6: the shared window's limit").isEqualTo(3);
        StoreStats stats = gate.store("login").orElseThrow();
        assertThat(stats.available()).isTrue();
        assertThat(stats.decidedWithoutStore()).isZero();
    }

    @Test
    void aCertificateTheJvmDoesNotTrust_isRefusedByDefault() {
        gate = gate("rediss://127.0.0.1:" + redis.port());

        assertThat(admitted(3))
                .as("the policy (closed) decides, not the untrusted server")
                .isZero();
        StoreStats stats = gate.store("login").orElseThrow();
        assertThat(stats.available()).isFalse();
        assertThat(stats.decidedWithoutStore()).isEqualTo(3);
    }
}

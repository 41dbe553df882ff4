package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.jaxrs.LeapgateFeature;
import dev.leapgate.servlet.LeapgateFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The status endpoint's Host check over HTTP/2 on Tomcat, in the servlet filter and in the JAX-RS
 * provider (Jersey at {@code /rs}). Tomcat gives a stream's {@code :authority} as the server name
 * and port but no {@code Host} field (unless the client sends one too). The client here speaks
 * cleartext HTTP/2 with prior knowledge, written by hand: a proxy in front that talks HTTP/2 to the
 * application does the same.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusOverHttp2IT {

    private Tomcat tomcat;
    private Connector connector;
    private java.nio.file.Path baseDir;

    @BeforeAll
    void start() throws Exception {
        baseDir = Files.createTempDirectory("leapgate-it-h2");
        tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.addUpgradeProtocol(new Http2Protocol());
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("/app", baseDir.toString());
        FilterDef filter = new FilterDef();
        filter.setFilterName("leapgate");
        filter.setFilterClass(LeapgateFilter.class.getName());
        filter.addInitParameter("rule.api.match", "/**");
        filter.addInitParameter("rule.api.limit", "100/1m");
        filter.addInitParameter("status-path", "/leapgate/status");
        context.addFilterDef(filter);
        FilterMap mapping = new FilterMap();
        mapping.setFilterName("leapgate");
        mapping.addURLPattern("/*");
        context.addFilterMap(mapping);
        Tomcat.addServlet(context, "app", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                response.getWriter().write("the application");
            }
        });
        context.addServletMappingDecoded("/", "app");
        Context jaxrs = tomcat.addContext("/rs", baseDir.toString());
        Tomcat.addServlet(
                jaxrs,
                "jersey",
                new ServletContainer(new ResourceConfig(Application.class)
                        .register(LeapgateFeature.class)
                        .property("leapgate.rule.api.match", "/**")
                        .property("leapgate.rule.api.limit", "100/1m")
                        .property("leapgate.status-path", "/leapgate/status")));
        jaxrs.addServletMappingDecoded("/*", "jersey");
        tomcat.start();
    }

    /** What the JAX-RS application serves at the status path to those who do not get the status. */
    @Path("leapgate/status")
    public static class Application {
        @GET
        public String get() {
            return "the application";
        }
    }

    @AfterAll
    void stop() throws Exception {
        tomcat.stop();
        tomcat.destroy();
        TestWebApp.deleteTree(baseDir);
    }

    @Test
    void aStreamForAnotherHostName_doesNotGetTheStatus() throws Exception {
        int port = connector.getLocalPort();
        assertThat(get("127.0.0.1:" + port)).as("for an address").startsWith("{");
        assertThat(get("localhost:" + port)).as("for localhost").startsWith("{");
        assertThat(get("attacker.example:" + port))
                .as(":authority attacker.example, as a proxy that talks HTTP/2 passes it on")
                .isEqualTo("the application");
    }

    /**
     * The JAX-RS provider reads the Host field through JAX-RS, which has none for such a stream: it
     * took the request for one without a Host (HTTP/1.0) and answered any host name.
     */
    @Test
    void aStreamForAnotherHostName_doesNotGetTheStatus_fromTheJaxrsProvider() throws Exception {
        int port = connector.getLocalPort();
        assertThat(get("/rs/leapgate/status", "127.0.0.1:" + port))
                .as("for an address")
                .startsWith("{");
        assertThat(get("/rs/leapgate/status", "localhost:" + port))
                .as("for localhost")
                .startsWith("{");
        assertThat(get("/rs/leapgate/status", "attacker.example:" + port))
                .as(":authority attacker.example, as a proxy that talks HTTP/2 passes it on")
                .isEqualTo("the application");
    }

    /** The body of a GET of the status path over HTTP/2 with {@code authority} as :authority. */
    private String get(String authority) throws IOException {
        return get("/app/leapgate/status", authority);
    }

    /** The body of a GET of {@code path} over HTTP/2 with {@code authority} as :authority. */
    private String get(String path, String authority) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", connector.getLocalPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            frame(out, 0x4, 0, 0, new byte[0]); // SETTINGS, none
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            field(block, ":method", "GET");
            field(block, ":scheme", "http");
            field(block, ":path", path);
            field(block, ":authority", authority);
            frame(out, 0x1, 0x5, 1, block.toByteArray()); // HEADERS, END_STREAM | END_HEADERS
            out.flush();

            DataInputStream in = new DataInputStream(socket.getInputStream());
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
                int type = in.readUnsignedByte();
                int flags = in.readUnsignedByte();
                int stream = in.readInt() & 0x7fff_ffff;
                byte[] payload = in.readNBytes(length);
                if (type == 0x4 && (flags & 0x1) == 0) {
                    frame(out, 0x4, 0x1, 0, new byte[0]); // SETTINGS ACK
                    out.flush();
                } else if (type == 0x3 || type == 0x7) {
                    throw new IOException("stream reset or connection closed (frame type " + type + ")");
                }
                if (stream == 1 && type == 0x0) {
                    body.write(payload);
                }
                if (stream == 1 && (type == 0x0 || type == 0x1) && (flags & 0x1) != 0) {
                    return body.toString(StandardCharsets.UTF_8);
                }
            }
        }
    }

    private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(new byte[] {
            (byte) (payload.length >>> 16),
            (byte) (payload.length >>> 8),
            (byte) payload.length,
            (byte) type,
            (byte) flags,
            (byte) (stream >>> 24),
            (byte) (stream >>> 16),
            (byte) (stream >>> 8),
            (byte) stream
        });
        out.write(payload);
    }

    /** An HPACK literal field without indexing, new name, no Huffman coding (all under 127 bytes). */
    private static void field(ByteArrayOutputStream block, String name, String value) {
        block.write(0x00);
        for (String text : new String[] {name, value}) {
            byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            block.write(bytes.length);
            block.writeBytes(bytes);
        }
    }
}

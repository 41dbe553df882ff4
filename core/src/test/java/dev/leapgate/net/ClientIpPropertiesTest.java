package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.leapgate.testing.Samples;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Properties of client-IP resolution, the code that reads what a client can write: forwarding
 * headers assembled from valid and broken addresses, ports, brackets, quotes, RFC 7239 parameters,
 * obfuscated identifiers and garbage never cause an exception, and nothing a client puts in front
 * of what a trusted proxy appended changes whom the request is from.
 */
class ClientIpPropertiesTest {

    private static final CidrList PROXIES = CidrList.parse("10.0.0.0/8, fd00::/8");

    private static final List<String> PIECES = List.of(
            "203.0.113.7",
            "198.51.100.1",
            "10.1.2.3",
            "127.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "2001:db8::1",
            "[2001:db8::1]",
            "[2001:db8::1]:443",
            "fd00::5",
            "::ffff:10.0.0.9",
            "fe80::1%eth0",
            "::",
            "1.2.3",
            "01.2.3.4",
            "300.1.1.1",
            ":80",
            ":",
            "[",
            "]",
            ",",
            ", ",
            ";",
            "=",
            "\"",
            "for=",
            "For=",
            "by=",
            "proto=https",
            "for=\"[2001:db8::1]:80\"",
            "unknown",
            "_hidden",
            "_",
            " ",
            "\t",
            "\u0000",
            "é",
            "x".repeat(600),
            ",,,,,,,,,,,,,,,,,,,,,,,,");

    private record Request(ClientIpResolver resolver, String peer, List<String> forwarded, List<String> xff) {}

    private static String headerValue(Samples s) {
        return s.joined(PIECES, 16);
    }

    private static Request request(Samples s, String peer) {
        ClientIpResolver resolver = ClientIpResolver.builder()
                .forwardingHeader(s.oneOf(List.of(ForwardingHeader.values())))
                .trustedProxies(s.oneOf(List.of(CidrList.empty(), PROXIES)))
                .ipv6PrefixLength(s.between(32, 64))
                .build();
        return new Request(
                resolver,
                peer != null ? peer : s.between(0, 1) == 0 ? s.oneOf(PIECES) : headerValue(s),
                s.listOf(3, ClientIpPropertiesTest::headerValue),
                s.listOf(3, ClientIpPropertiesTest::headerValue));
    }

    @Test
    void nothingInARequest_causesAnException() {
        Samples.check(s -> request(s, null), r -> {
            r.resolver().resolve(r.peer(), r.forwarded(), r.xff());
            r.resolver().formatKey(r.resolver().resolveKey(r.peer(), r.forwarded(), r.xff()));
        });
    }

    @Test
    void anUntrustedPeer_isTheClient_whateverItsHeadersSay() {
        Samples.check(
                s -> request(s, "203.0.113.7"),
                r -> assertThat(r.resolver().resolve(r.peer(), r.forwarded(), r.xff()))
                        .contains(IpAddress.parse("203.0.113.7")));
    }

    @Test
    void whatAClientPrependsToATrustedProxysEntry_changesNothing() {
        ClientIpResolver resolver =
                ClientIpResolver.builder().trustedProxies(PROXIES).build(); // X-Forwarded-For
        List<String> clients = List.of("203.0.113.7", "198.51.100.1", "2001:db8::1", "192.0.2.200");
        Samples.check(s -> new String[] {headerValue(s), s.oneOf(clients)}, forgedAndClient -> {
            String forged = forgedAndClient[0];
            IpAddress client = IpAddress.parse(forgedAndClient[1]);

            assertThat(resolver.resolve("10.0.0.1", List.of(), List.of(forged + ", " + client)))
                    .contains(client);
            assertThat(resolver.resolve("10.0.0.1", List.of(), List.of(forged, client.toString())))
                    .as("on two header lines")
                    .contains(client);
        });
    }

    @Test
    void anAddressPrintsAsTextThatParsesBackToIt() {
        Samples.check(s -> s.bytes(s.between(0, 1) == 0 ? 4 : 16), bytes -> {
            StringBuilder text = new StringBuilder();
            if (bytes.length == 4) {
                for (int i = 0; i < 4; i++) {
                    text.append(i == 0 ? "" : ".").append(bytes[i] & 0xff);
                }
            } else {
                for (int i = 0; i < 16; i += 2) {
                    text.append(i == 0 ? "" : ":")
                            .append(Integer.toHexString((bytes[i] & 0xff) << 8 | bytes[i + 1] & 0xff));
                }
            }
            IpAddress address = IpAddress.parse(text.toString());

            assertThat(IpAddress.parse(address.toString())).isEqualTo(address);
        });
    }

    @Test
    void parsingAddressesAndBlocks_throwsNothingButIllegalArgument() {
        Samples.check(ClientIpPropertiesTest::headerValue, text -> {
            for (Runnable parse : List.<Runnable>of(
                    () -> IpAddress.parse(text), () -> Cidr.parse(text), () -> CidrList.parse(text))) {
                Throwable thrown = catchThrowable(parse::run);
                if (thrown != null) {
                    assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
                    assertThat(thrown.getMessage()).isNotBlank();
                }
            }
        });
    }
}

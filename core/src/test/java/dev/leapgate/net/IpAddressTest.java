package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressTest {

    private static final String IPV4_REASON =
            "expected an IPv4 dotted quad: four decimal numbers from 0 to 255 without leading zeros";
    private static final String GROUPS_REASON =
            "expected 8 groups of 1 to 4 hex digits separated by ':', or fewer with one '::'";
    private static final String EMBEDDED_REASON =
            "an embedded IPv4 address must be a valid dotted quad in the last 32 bits";
    private static final String ZONE_REASON = "a zone id must be one or more letters, digits or '-._~%'";

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "1.2.3.4", "10.0.0.1", "192.168.100.200", "255.255.255.255", "203.0.113.7"})
    void parse_validIpv4_isIpv4AndFormatsBack(String text) {
        IpAddress address = IpAddress.parse(text);

        assertThat(address.isIpv4()).isTrue();
        assertThat(address).hasToString(text);
    }

    @Test
    void parse_ipv4_storesTheBitsInMappedForm() {
        IpAddress address = IpAddress.parse("192.0.2.255");

        assertThat(address.high()).isZero();
        assertThat(address.low()).isEqualTo(0x0000_FFFF_C000_02FFL);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1.2.3", // too few parts: inet_aton would read it as 1.2.0.3
                "1.2.3.4.5",
                "256.1.1.1",
                "1.2.3.256",
                "1.2.3.1000",
                "1.2.3.-1",
                "+1.2.3.4",
                "01.2.3.4", // octal to some parsers, decimal to others
                "1.2.3.04",
                "00.0.0.0",
                "0x7f.1",
                "0x7f.0.0.1",
                "2130706433", // a 32-bit integer
                "1..2.3",
                "1.2.3.4.",
                ".1.2.3",
                " 1.2.3.4",
                "1.2.3.4 ",
                "1.2.3.4/32",
                "1.2.3.4%eth0", // zone ids exist for IPv6 only
                "\u0661.\u0662.\u0663.\u0664", // Arabic-Indic digits are not ASCII digits
                "localhost",
                "example.com",
                "unknown"
            })
    void parse_malformedIpv4_isRejectedNamingTheText(String text) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> IpAddress.parse(text))
                .withMessage("invalid IP address '" + text + "': " + IPV4_REASON);
    }

    @Test
    void parse_empty_isRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> IpAddress.parse(""))
                .withMessage("invalid IP address '': empty");
    }

    @Test
    void parse_null_throwsNamingTheParameter() {
        assertThatNullPointerException().isThrownBy(() -> IpAddress.parse(null)).withMessage("text");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "::                                        | ::",
                "::1                                       | ::1",
                "1::                                       | 1::",
                "1::8                                      | 1::8",
                "2001:db8::1                               | 2001:db8::1",
                "2001:0db8:0000:0000:0000:0000:0000:0001   | 2001:db8::1",
                "2001:DB8::A                               | 2001:db8::a",
                "0:0:0:0:0:0:0:1                           | ::1",
                "1:0:0:0:0:0:0:0                           | 1::",
                "1:2:3:4:5:6:7::                           | 1:2:3:4:5:6:7:0", // '::' for one group
                "::2:3:4:5:6:7:8                           | 0:2:3:4:5:6:7:8",
                "1:2:3::5:6:7:8                            | 1:2:3:0:5:6:7:8",
                "2001:db8:0:0:1:0:0:1                      | 2001:db8::1:0:0:1", // tie: first run
                "2001:0:0:1:0:0:0:1                        | 2001:0:0:1::1", // longest run
                "2001:db8:0:1:1:1:1:1                      | 2001:db8:0:1:1:1:1:1", // one zero group
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff   | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "1:2:3:4:5:6:1.2.3.4                       | 1:2:3:4:5:6:102:304",
                "1::1.2.3.4                                | 1::102:304",
                "::1.2.3.4                                 | ::102:304", // IPv4-compatible stays IPv6
                "64:ff9b::192.0.2.33                       | 64:ff9b::c000:221", // NAT64 stays IPv6
                "::fffe:1.2.3.4                            | ::fffe:102:304",
                "fe80::1%eth0                              | fe80::1", // zone id dropped
                "fe80::1%2                                 | fe80::1",
                "fe80::1%25en0                             | fe80::1",
                "00ab:0cd::0001                            | ab:cd::1",
                "0:0:1:2:0:1:0:0                           | ::1:2:0:1:0:0", // tie at the end: first run
                "::1:2:3:4:5:1.2.3.4                       | 0:1:2:3:4:5:102:304", // tail beyond 64 bits
                "1::3:4:5:6:1.2.3.4                        | 1:0:3:4:5:6:102:304",
                "::0.0.0.0                                 | ::", // an all-zero quad is still a quad
                "fe80::1%09azAZ-._~                        | fe80::1" // every kind of zone id character
            })
    void parse_validIpv6_formatsInRfc5952Form(String text, String canonical) {
        IpAddress address = IpAddress.parse(text);

        assertThat(address.isIpv4()).isFalse();
        assertThat(address).hasToString(canonical);
        assertThat(IpAddress.parse(canonical)).isEqualTo(address);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "::ffff:192.0.2.1",
                "::FFFF:192.0.2.1",
                "::ffff:c000:201",
                "0:0:0:0:0:ffff:192.0.2.1",
                "0000:0000:0000:0000:0000:ffff:c000:0201",
                "::ffff:192.0.2.1%eth0"
            })
    void parse_ipv4MappedIpv6_isTheIpv4Address(String text) {
        IpAddress address = IpAddress.parse(text);

        assertThat(address.isIpv4()).isTrue();
        assertThat(address).isEqualTo(IpAddress.parse("192.0.2.1")).hasToString("192.0.2.1");
        assertThat(address.hashCode()).isEqualTo(IpAddress.parse("192.0.2.1").hashCode());
    }

    @Test
    void parse_ipv4MappedAllZeroQuad_isTheIpv4AddressZero() {
        IpAddress address = IpAddress.parse("::ffff:0.0.0.0");

        assertThat(address.isIpv4()).isTrue();
        assertThat(address).isEqualTo(IpAddress.parse("0.0.0.0")).hasToString("0.0.0.0");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                ":                    | " + GROUPS_REASON,
                ":1                   | " + GROUPS_REASON,
                "1:                   | " + GROUPS_REASON,
                ":1::                 | " + GROUPS_REASON,
                "1::2:                | " + GROUPS_REASON,
                ":::                  | " + GROUPS_REASON,
                "1:::2                | " + GROUPS_REASON,
                "1:2:3:4:5:6:7        | " + GROUPS_REASON,
                "1:2:3:4:5:6:7:8:9    | " + GROUPS_REASON,
                "1:2:3:4:5:6:7:8::    | " + GROUPS_REASON,
                "::1:2:3:4:5:6:7:8    | " + GROUPS_REASON,
                "1:2:3:4::5:6:7:8     | " + GROUPS_REASON,
                "12345::              | " + GROUPS_REASON,
                "::00000              | " + GROUPS_REASON,
                ":%eth0               | " + GROUPS_REASON,
                "1::2::3              | '::' may appear only once",
                "::1::                | '::' may appear only once",
                "::1.2.3              | " + EMBEDDED_REASON,
                "::1.2.3.256          | " + EMBEDDED_REASON,
                "::01.2.3.4           | " + EMBEDDED_REASON,
                "::1.2.3.4:5          | " + EMBEDDED_REASON,
                "1.2.3.4::            | " + EMBEDDED_REASON,
                "::1.2.3.4.5          | " + EMBEDDED_REASON,
                "1:2:3:4:5:6:7:1.2.3.4 | " + EMBEDDED_REASON,
                "1:2:3:4:5:1.2.3.4    | " + GROUPS_REASON, // the quad does not reach the last 32 bits
                "::ab.1.2.3           | " + EMBEDDED_REASON,
                "fe80::1%             | " + ZONE_REASON,
                "fe80::1%eth/0        | " + ZONE_REASON,
                "::g                  | unexpected character 'g' in an IPv6 address",
                "[::1]                | unexpected character '[' in an IPv6 address",
                "::1]                 | unexpected character ']' in an IPv6 address",
                "1:2 ::3              | unexpected character ' ' in an IPv6 address",
                "::1/128              | unexpected character '/' in an IPv6 address",
                "fe80::1:eth0         | unexpected character 't' in an IPv6 address"
            })
    void parse_malformedIpv6_isRejectedWithTheReason(String text, String reason) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> IpAddress.parse(text))
                .withMessage("invalid IP address '" + text + "': " + reason);
    }

    @Test
    void equals_comparesTheBits() {
        IpAddress a = IpAddress.parse("2001:db8::1");

        assertThat(a).isEqualTo(IpAddress.parse("2001:DB8:0::0:1"));
        assertThat(a.hashCode()).isEqualTo(IpAddress.parse("2001:DB8:0::0:1").hashCode());
        assertThat(a).isNotEqualTo(IpAddress.parse("2001:db8::2"));
        assertThat(a).isNotEqualTo(IpAddress.parse("2001:db9::1"));
        assertThat(IpAddress.parse("::1.2.3.4")).isNotEqualTo(IpAddress.parse("1.2.3.4"));
        assertThat(a).isNotEqualTo("2001:db8::1");
    }

    @Test
    void isMulticast_coversBothFamiliesExactly() {
        assertThat(IpAddress.parse("224.0.0.0").isMulticast()).isTrue();
        assertThat(IpAddress.parse("239.255.255.255").isMulticast()).isTrue();
        assertThat(IpAddress.parse("223.255.255.255").isMulticast()).isFalse();
        assertThat(IpAddress.parse("240.0.0.0").isMulticast()).isFalse();
        assertThat(IpAddress.parse("ff02::1").isMulticast()).isTrue();
        assertThat(IpAddress.parse("feff::1").isMulticast()).isFalse();
        assertThat(IpAddress.parse("::ffff:224.0.0.1").isMulticast()).isTrue();
    }

    /** Cross-checks against the JDK on random addresses, biased to zero groups to exercise '::'. */
    @Test
    void parse_agreesWithTheJdkOnRandomIpv6Addresses() throws Exception {
        Random random = new Random(42);
        for (int n = 0; n < 20_000; n++) {
            ByteBuffer bytes = ByteBuffer.allocate(16);
            for (int g = 0; g < 8; g++) {
                int kind = random.nextInt(4);
                bytes.putShort((short) (kind < 2 ? 0 : kind == 2 ? random.nextInt(16) : random.nextInt(0x10000)));
            }
            long high = bytes.getLong(0);
            long low = bytes.getLong(8);
            // The JDK formats eight full groups ("2001:db8:0:0:0:0:0:1") and turns a mapped address
            // into an Inet4Address, so compare through the bytes.
            InetAddress jdk = InetAddress.getByAddress(bytes.array());
            IpAddress fromJdkText = IpAddress.parse(jdk.getHostAddress());
            IpAddress expected = new IpAddress(high, low);

            assertThat(fromJdkText).isEqualTo(expected);
            assertThat(IpAddress.parse(expected.toString())).isEqualTo(expected);
            // Our canonical text must be a literal the JDK reads back to the same bytes.
            assertThat(InetAddress.getByName(expected.toString()).getAddress())
                    .isEqualTo(expected.isIpv4() ? jdk.getAddress() : bytes.array());
        }
    }

    @Test
    void parse_agreesWithTheJdkOnRandomIpv4Addresses() throws Exception {
        Random random = new Random(7);
        for (int n = 0; n < 20_000; n++) {
            byte[] bytes = new byte[4];
            random.nextBytes(bytes);
            String text = InetAddress.getByAddress(bytes).getHostAddress();

            IpAddress address = IpAddress.parse(text);

            assertThat(address.low() & 0xFFFF_FFFFL)
                    .isEqualTo(ByteBuffer.wrap(bytes).getInt() & 0xFFFF_FFFFL);
            assertThat(address).hasToString(text);
        }
    }
}

package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClientKeyTest {

    private static final String PREFIX_RANGE =
            "ipv6PrefixLength must be between 32 and 64 (a client key holds at most the first 64 bits"
                    + " of an IPv6 address), was ";

    @Test
    void of_ipv4_isTheTagAndThe32Bits() {
        assertThat(ClientKey.of(IpAddress.parse("203.0.113.7"), 64)).isEqualTo(0xFF00_0000_CB00_7107L);
        assertThat(ClientKey.of(IpAddress.parse("0.0.0.0"), 64)).isEqualTo(0xFF00_0000_0000_0000L);
        assertThat(ClientKey.of(IpAddress.parse("255.255.255.255"), 64)).isEqualTo(0xFF00_0000_FFFF_FFFFL);
        assertThat(ClientKey.of(IpAddress.parse("::ffff:203.0.113.7"), 64)).isEqualTo(0xFF00_0000_CB00_7107L);
    }

    @Test
    void of_ipv4_ignoresThePrefixLength() {
        IpAddress address = IpAddress.parse("203.0.113.7");

        assertThat(ClientKey.of(address, 32)).isEqualTo(ClientKey.of(address, 64));
        assertThat(ClientKey.of(address, 64)).isNotEqualTo(ClientKey.of(IpAddress.parse("203.0.113.8"), 64));
    }

    @Test
    void of_ipv6_isThePrefixItself() {
        assertThat(ClientKey.of(IpAddress.parse("2001:db8:1:2:3:4:5:6"), 64)).isEqualTo(0x2001_0db8_0001_0002L);
        assertThat(ClientKey.of(IpAddress.parse("2001:db8:1:2:3:4:5:6"), 48)).isEqualTo(0x2001_0db8_0001_0000L);
        assertThat(ClientKey.of(IpAddress.parse("2001:db8:1:2ff::"), 56)).isEqualTo(0x2001_0db8_0001_0200L);
        assertThat(ClientKey.of(IpAddress.parse("2001:db8:ffff:ffff::"), 32)).isEqualTo(0x2001_0db8_0000_0000L);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "2001:db8:1:2::1         | 2001:db8:1:2:ffff:ffff:ffff:ffff | 64 | true",
                "2001:db8:1:2::1         | 2001:db8:1:3::1                  | 64 | false",
                "2001:db8:1:2::1         | 2001:db8:1:3::1                  | 48 | true",
                "2001:db8:1:2::1         | 2001:db8:2:2::1                  | 48 | false",
                "2001:db8:1:ff::1        | 2001:db8:1:0::1                  | 56 | true",
                "2001:db8:1:100::1       | 2001:db8:1:ff::1                 | 56 | false",
                "2001:db8:1:2::1         | 2001:db8:1:2::1                  | 63 | true",
                "2001:db8:1:2::1         | 2001:db8:1:3::1                  | 63 | true",
                "2001:db8:1:2::1         | 2001:db8:1:4::1                  | 63 | false",
                "::1                     | ::2                              | 64 | true",
                "::1                     | 0.0.0.0                          | 64 | false",
                "::1                     | 0.0.0.1                          | 64 | false",
                "::1.2.3.4               | 1.2.3.4                          | 64 | true",
                "::1.2.3.4               | ::1.2.3.5                        | 64 | false",
                "::ffff:0:1.2.3.4        | 1.2.3.4                          | 64 | true",
                "::ffff:0:1.2.3.4        | ::ffff:0:1.2.3.5                 | 64 | false",
                "::0.1.2.3               | ::0.1.2.4                        | 64 | true",
                "64:ff9b::1.2.3.4        | 64:ff9b::1.2.3.5                 | 64 | false",
                "64:ff9b::1.2.3.4        | 1.2.3.4                          | 32 | true",
                "64:ff9b:0:0:1::1.2.3.4  | 64:ff9b::1.2.3.4                 | 64 | false",
                "fe80::1                 | fe80::2                          | 64 | true",
                "2002:c633:6401:1::1     | 2002:c633:6401:2::1              | 64 | true",
                "2002:c633:6401:1::1     | 198.51.100.1                     | 64 | true",
                "2002:c633:6401:1::1     | 2002:c633:6402:1::1              | 64 | false",
                "2001:0:cb00:7100:8000:63bf:3fff:fdd2 | 2001:0:cb00:7100:0:1234:3ccc:1111 | 64 | false",
                "2001:0:cb00:7100:8000:63bf:3fff:fdd2 | 192.0.2.45         | 64 | true",
                "2001:1::1               | 2001:1::2                        | 64 | true"
            })
    void of_groupsIpv6ByPrefix(String a, String b, int prefixLength, boolean sameKey) {
        long keyA = ClientKey.of(IpAddress.parse(a), prefixLength);
        long keyB = ClientKey.of(IpAddress.parse(b), prefixLength);

        assertThat(keyA == keyB).isEqualTo(sameKey);
    }

    /** The encoding's promise: no IPv6 prefix, at any length, lands in the IPv4 or UNKNOWN values. */
    @Test
    void of_neverCollidesAcrossFamilies() {
        Random random = new Random(1);
        for (int n = 0; n < 100_000; n++) {
            long high = random.nextLong();
            if ((high >>> 56) == 0xFF || (high >>> 48) == 0x2002 || (high >>> 32) == 0x2001_0000L) {
                continue; // multicast, never a client; or a tunnel's address, an IPv4 client's
            }
            int prefixLength = 32 + random.nextInt(33);
            IpAddress ipv4 = new IpAddress(0L, 0x0000_FFFF_0000_0000L | (high >>> 32));
            if (ipv4.isMulticast()) {
                continue;
            }
            long ipv6Key = ClientKey.of(new IpAddress(high, random.nextLong()), prefixLength);
            long ipv4Key = ClientKey.of(ipv4, prefixLength);

            assertThat(ipv6Key >>> 56).isNotEqualTo(0xFFL);
            assertThat(ipv4Key >>> 32).isEqualTo(0xFF00_0000L);
            assertThat(ipv6Key).isNotEqualTo(ClientKey.UNKNOWN);
            assertThat(ipv4Key).isNotEqualTo(ClientKey.UNKNOWN);
        }
        // The corners: the all-zero IPv6 prefix and the all-ones IPv4 address.
        assertThat(ClientKey.of(IpAddress.parse("::"), 64)).isZero();
        assertThat(ClientKey.of(IpAddress.parse("255.255.255.255"), 64)).isNotEqualTo(ClientKey.UNKNOWN);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "203.0.113.7                 | 64 | 203.0.113.7",
                "::ffff:203.0.113.7          | 64 | 203.0.113.7",
                "64:ff9b::203.0.113.7        | 48 | 203.0.113.7",
                "::ffff:0:203.0.113.7        | 64 | 203.0.113.7",
                "::203.0.113.7               | 64 | 203.0.113.7",
                "64:ff9b:1::203.0.113.7      | 64 | 64:ff9b:1::/64",
                "2002:cb00:7107:5::1         | 64 | 203.0.113.7",
                "2001:0:4136:e378:8000:63bf:3401:8cf8 | 64 | 203.254.115.7",
                "0.0.0.0                     | 64 | 0.0.0.0",
                "255.255.255.255             | 64 | 255.255.255.255",
                "2001:db8:1:2:3:4:5:6        | 64 | 2001:db8:1:2::/64",
                "2001:db8:1:2:3:4:5:6        | 48 | 2001:db8:1::/48",
                "2001:db8:1:2:3:4:5:6        | 32 | 2001:db8::/32",
                "2001:db8:0:1:1:1:1:1        | 64 | 2001:db8:0:1::/64",
                "::1                         | 64 | ::/64",
                "fe80::1%eth0                | 64 | fe80::/64",
                "feff:ffff:ffff:ffff::       | 64 | feff:ffff:ffff:ffff::/64"
            })
    void format_rendersTheClient(String address, int prefixLength, String text) {
        long key = ClientKey.of(IpAddress.parse(address), prefixLength);

        assertThat(ClientKey.format(key, prefixLength)).isEqualTo(text);
    }

    @Test
    void format_unknown() {
        assertThat(ClientKey.format(ClientKey.UNKNOWN, 64)).isEqualTo("unknown");
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 1, 31, 65, 80, 128})
    void prefixLengthOutOfRange_isRejectedWithTheValue(int prefixLength) {
        IpAddress address = IpAddress.parse("2001:db8::1");

        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.of(address, prefixLength))
                .withMessage(PREFIX_RANGE + prefixLength);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.format(0L, prefixLength))
                .withMessage(PREFIX_RANGE + prefixLength);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ff02::1", "ff00::", "224.0.0.1", "239.255.255.255"})
    void of_multicast_isRejected(String text) {
        IpAddress address = IpAddress.parse(text);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.of(address, 64))
                .withMessage(
                        "multicast address " + address + " cannot be a client: it is never the source of a connection");
    }

    @Test
    void format_valueInTheReservedRange_isRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.format(0xFF12_0000_0000_0001L, 64))
                .withMessage("not a client key: 0xff12000000000001");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.format(0xFF00_0001_0000_0000L, 64))
                .withMessage("not a client key: 0xff00000100000000");
    }

    @Test
    void format_ipv6KeyWithBitsAfterThePrefix_isRejected() {
        long key64 = ClientKey.of(IpAddress.parse("2001:db8:1:2::"), 64);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientKey.format(key64, 48))
                .withMessage("not a client key for ipv6PrefixLength 48: 0x20010db800010002 has bits set after the"
                        + " prefix");
    }

    @Test
    void of_null_throwsNamingTheParameter() {
        assertThatNullPointerException()
                .isThrownBy(() -> ClientKey.of(null, 64))
                .withMessage("address");
    }
}

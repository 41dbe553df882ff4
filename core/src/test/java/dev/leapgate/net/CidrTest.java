package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CidrTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "10.0.0.0/8            | 10.0.0.0/8       | true  | 8",
                "192.168.1.7           | 192.168.1.7/32   | true  | 32",
                "192.168.1.7/32        | 192.168.1.7/32   | true  | 32",
                "0.0.0.0/0             | 0.0.0.0/0        | true  | 0",
                "128.0.0.0/1           | 128.0.0.0/1      | true  | 1",
                "2001:db8::/32         | 2001:db8::/32    | false | 32",
                "2001:DB8:0::/48       | 2001:db8::/48    | false | 48",
                "::1                   | ::1/128          | false | 128",
                "::/0                  | ::/0             | false | 0",
                "::ffff:10.0.0.0/104   | 10.0.0.0/8       | true  | 8",
                "::ffff:0:0/96         | 0.0.0.0/0        | true  | 0",
                "::ffff:192.0.2.1      | 192.0.2.1/32     | true  | 32",
                "::/96                 | ::/96            | false | 96"
            })
    void parse_validBlock_hasCanonicalFormFamilyAndLength(
            String text, String canonical, boolean ipv4, int prefixLength) {
        Cidr cidr = Cidr.parse(text);

        assertThat(cidr).hasToString(canonical);
        assertThat(cidr.isIpv4()).isEqualTo(ipv4);
        assertThat(cidr.prefixLength()).isEqualTo(prefixLength);
        assertThat(Cidr.parse(canonical)).isEqualTo(cidr);
    }

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "10.0.0.0/8             | 10.0.0.0                                | true",
                "10.0.0.0/8             | 10.255.255.255                          | true",
                "10.0.0.0/8             | 9.255.255.255                           | false",
                "10.0.0.0/8             | 11.0.0.0                                | false",
                "10.0.0.0/8             | ::ffff:10.1.2.3                         | true",
                "10.0.0.0/8             | ::ffff:11.0.0.0                         | false",
                "10.0.0.0/8             | ::a00:1                                 | false", // IPv4-compatible
                "10.0.0.0/8             | 2001:db8::1                             | false",
                "10.0.0.0/31            | 10.0.0.1                                | true",
                "10.0.0.0/31            | 10.0.0.2                                | false",
                "128.0.0.0/1            | 128.0.0.0                               | true",
                "128.0.0.0/1            | 255.255.255.255                         | true",
                "128.0.0.0/1            | 127.255.255.255                         | false",
                "192.168.1.7            | 192.168.1.7                             | true",
                "192.168.1.7            | 192.168.1.6                             | false",
                "192.168.1.7            | 192.168.1.8                             | false",
                "0.0.0.0/0              | 0.0.0.0                                 | true",
                "0.0.0.0/0              | 255.255.255.255                         | true",
                "0.0.0.0/0              | ::ffff:1.2.3.4                          | true",
                "0.0.0.0/0              | ::                                      | false",
                "0.0.0.0/0              | ::1                                     | false",
                "0.0.0.0/0              | 2001:db8::1                             | false",
                "::/0                   | ::                                      | true",
                "::/0                   | ::1                                     | true",
                "::/0                   | ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | true",
                "::/0                   | 0.0.0.0                                 | false", // families apart
                "::/0                   | ::ffff:1.2.3.4                          | false",
                "2001:db8::/32          | 2001:db8::                              | true",
                "2001:db8::/32          | 2001:db8:ffff:ffff:ffff:ffff:ffff:ffff  | true",
                "2001:db8::/32          | 2001:db7:ffff:ffff:ffff:ffff:ffff:ffff  | false",
                "2001:db8::/32          | 2001:db9::                              | false",
                "2001:db8::/32          | 32.1.13.184                             | false",
                "2001:db8::/63          | 2001:db8:0:1:ffff:ffff:ffff:ffff        | true",
                "2001:db8::/63          | 2001:db8:0:2::                          | false",
                "2001:db8::/64          | 2001:db8::ffff:ffff:ffff:ffff           | true",
                "2001:db8::/64          | 2001:db8:0:1::                          | false",
                "2001:db8:0:0:8000::/65 | 2001:db8::8000:0:0:0                    | true",
                "2001:db8:0:0:8000::/65 | 2001:db8::ffff:ffff:ffff:ffff           | true",
                "2001:db8:0:0:8000::/65 | 2001:db8::7fff:ffff:ffff:ffff           | false",
                "fe80::/10              | fe80::1                                 | true",
                "fe80::/10              | febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff | true",
                "fe80::/10              | fec0::                                  | false",
                "::1                    | ::1                                     | true",
                "::1                    | ::                                      | false",
                "::1                    | ::2                                     | false",
                "::1                    | 0.0.0.1                                 | false",
                "2001:db8::ff/128       | 2001:db8::ff                            | true",
                "2001:db8::ff/128       | 2001:db8::fe                            | false",
                "2001:db8::ff/128       | 2001:db8::1:ff                          | false"
            })
    void contains_atTheBoundaries(String cidr, String address, boolean expected) {
        assertThat(Cidr.parse(cidr).contains(IpAddress.parse(address))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "10.0.0.0/33          | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/            | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/-1          | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/+8          | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/x           | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/1234        | prefix length must be between 0 and 32 for IPv4",
                "10.0.0.0/8/8         | prefix length must be between 0 and 32 for IPv4",
                "\"10.0.0.0/ 8\"      | prefix length must be between 0 and 32 for IPv4",
                "2001:db8::/129       | prefix length must be between 0 and 128 for IPv6",
                "::ffff:10.0.0.0/129  | prefix length must be between 0 and 128 for IPv6",
                "10.0.0.1/8           | host bits are set, the network is 10.0.0.0/8",
                "11.0.0.0/7           | host bits are set, the network is 10.0.0.0/7",
                "0.0.0.1/0            | host bits are set, the network is 0.0.0.0/0",
                "2001:db8::1/32       | host bits are set, the network is 2001:db8::/32",
                "2001:db8::1/127      | host bits are set, the network is 2001:db8::/127",
                "::1/0                | host bits are set, the network is ::/0",
                "::ffff:10.0.0.1/104  | host bits are set, the network is ::ffff:a00:0/104",
                "::ffff:0:0/95        | host bits are set, the network is ::fffe:0:0/95",
                "\"\"                 | empty",
                "/8                   | empty",
                "10.0.0.256/8         | expected an IPv4 dotted quad: four decimal numbers from 0 to 255 without leading zeros",
                "010.0.0.0/8          | expected an IPv4 dotted quad: four decimal numbers from 0 to 255 without leading zeros",
                "localhost/8          | expected an IPv4 dotted quad: four decimal numbers from 0 to 255 without leading zeros",
                "fe80::%eth0/64       | a zone id is not allowed here",
                "1::2::3/64           | '::' may appear only once",
                "2001:db8::g/64       | unexpected character 'g' in an IPv6 address"
            })
    void parse_invalidBlock_isRejectedNamingTheText(String text, String reason) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Cidr.parse(text))
                .withMessage("invalid CIDR '" + text + "': " + reason);
    }

    @Test
    void parse_null_throwsNamingTheParameter() {
        assertThatNullPointerException().isThrownBy(() -> Cidr.parse(null)).withMessage("text");
    }

    @Test
    void equals_dependsOnFamilyNetworkAndLength() {
        Cidr ten = Cidr.parse("10.0.0.0/8");

        assertThat(ten).isEqualTo(Cidr.parse("::ffff:10.0.0.0/104"));
        assertThat(ten.hashCode()).isEqualTo(Cidr.parse("::ffff:10.0.0.0/104").hashCode());
        assertThat(ten).isNotEqualTo(Cidr.parse("10.0.0.0/9"));
        assertThat(ten).isNotEqualTo(Cidr.parse("11.0.0.0/8"));
        assertThat(Cidr.parse("0.0.0.0/0")).isNotEqualTo(Cidr.parse("::/0"));
        assertThat(Cidr.parse("0.0.0.0/0")).isNotEqualTo(Cidr.parse("::/96"));
    }

    @Test
    void network_isTheFirstAddress() {
        assertThat(Cidr.parse("192.168.0.0/16").network()).isEqualTo(IpAddress.parse("192.168.0.0"));
        assertThat(Cidr.parse("2001:db8::/32").network()).isEqualTo(IpAddress.parse("2001:db8::"));
    }
}

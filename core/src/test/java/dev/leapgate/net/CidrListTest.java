package dev.leapgate.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CidrListTest {

    @Test
    void parse_acceptsCommasAndAnyWhitespaceAsSeparators() {
        CidrList list = CidrList.parse(" 10.0.0.0/8, 192.168.0.0/16 ::1\n\t2001:db8::/32,,\r\n");

        assertThat(list.cidrs())
                .containsExactly(
                        Cidr.parse("10.0.0.0/8"),
                        Cidr.parse("192.168.0.0/16"),
                        Cidr.parse("::1"),
                        Cidr.parse("2001:db8::/32"));
        assertThat(list).hasToString("10.0.0.0/8, 192.168.0.0/16, ::1/128, 2001:db8::/32");
        assertThat(CidrList.parse(list.toString())).isEqualTo(list);
        assertThat(list.isEmpty()).isFalse();
    }

    @Test
    void parse_blank_isTheEmptyList() {
        CidrList list = CidrList.parse(" , \n ");

        assertThat(list.isEmpty()).isTrue();
        assertThat(list).isEqualTo(CidrList.empty()).hasToString("");
        assertThat(list.contains(IpAddress.parse("10.0.0.1"))).isFalse();
    }

    @Test
    void parse_invalidEntry_isRejectedNamingIt_andTheWholeValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.0/8, 10.0.0.0/33"))
                .withMessage("invalid CIDR '10.0.0.0/33': prefix length must be between 0 and 32 for IPv4"
                        + " (in '10.0.0.0/8, 10.0.0.0/33')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.0/33"))
                .withMessage("invalid CIDR '10.0.0.0/33': prefix length must be between 0 and 32 for IPv4");
    }

    @Test
    void parse_reportsEveryInvalidEntry_withHintsForNamesAndStraySpaces() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("localhost, 10.0.0.0/33"))
                .withMessage("invalid CIDR 'localhost': not an IP address; names are not resolved: write an address,"
                        + " e.g. 127.0.0.1 or ::1; invalid CIDR '10.0.0.0/33': prefix length must be between 0 and 32"
                        + " for IPv4 (in 'localhost, 10.0.0.0/33')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.0 /8"))
                .withMessageStartingWith("invalid CIDR '/8': ")
                .withMessageEndingWith("; no space is allowed inside a block: write 10.0.0.0/8 (in '10.0.0.0 /8')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.1\u0000"))
                .withMessageStartingWith("invalid CIDR '10.0.0.1\\u0000'");
    }

    @Test
    void parse_prefixLengthWithoutAnAddress_isRejectedNamingIt() {
        // Only a stray space after a block earns the "no space is allowed" hint; a first entry has
        // no block before it to name.
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("/8, 10.0.0.0/8"))
                .withMessage("invalid CIDR '/8': empty (in '/8, 10.0.0.0/8')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("/8"))
                .withMessage("invalid CIDR '/8': empty");
    }

    @Test
    void equals_comparesTheBlocksInOrder() {
        CidrList list = CidrList.parse("10.0.0.0/8, 2001:db8::/32");

        assertThat(list).isEqualTo(CidrList.parse("10.0.0.0/8 2001:db8:0::/32"));
        assertThat(list.hashCode())
                .isEqualTo(CidrList.parse("10.0.0.0/8 2001:db8:0::/32").hashCode());
        assertThat(list).isNotEqualTo(CidrList.parse("10.0.0.0/8"));
        assertThat(list).isNotEqualTo(CidrList.parse("10.0.0.0/16, 2001:db8::/32"));
        assertThat(list).isNotEqualTo(CidrList.parse("2001:db8::/32, 10.0.0.0/8"));
        assertThat(CidrList.parse("10.0.0.0/8")).isNotEqualTo(CidrList.empty());
        assertThat(list).isNotEqualTo("10.0.0.0/8, 2001:db8::/32");
    }

    @Test
    void parse_blocksJoinedBySemicolonsOrBars_isRejectedSayingHowListsAreSeparated() {
        // Another format's separator makes one entry of two blocks: its own parse error would blame
        // the prefix length ("must be between 0 and 32") of a list whose prefixes are all fine.
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.0/8;192.168.0.0/16"))
                .withMessage("invalid CIDR '10.0.0.0/8;192.168.0.0/16': entries are separated by commas or spaces,"
                        + " not ';': write 10.0.0.0/8, 192.168.0.0/16");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.1; 10.0.0.2"))
                .withMessage("invalid CIDR '10.0.0.1;': entries are separated by commas or spaces, not ';':"
                        + " write 10.0.0.1 (in '10.0.0.1; 10.0.0.2')");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("fd00::/8|10.0.0.0/8"))
                .withMessage("invalid CIDR 'fd00::/8|10.0.0.0/8': entries are separated by commas or spaces,"
                        + " not '|': write fd00::/8, 10.0.0.0/8");
        // Not blocks once split either: the entry's own error stands.
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CidrList.parse("10.0.0.0/8;x"))
                .withMessageStartingWith("invalid CIDR '10.0.0.0/8;x': ");
    }

    @Test
    void contains_anyBlock() {
        CidrList list = CidrList.parse("10.0.0.0/8, 2001:db8::/32");

        assertThat(list.contains(IpAddress.parse("10.1.2.3"))).isTrue();
        assertThat(list.contains(IpAddress.parse("2001:db8::5"))).isTrue();
        assertThat(list.contains(IpAddress.parse("::ffff:10.1.2.3"))).isTrue();
        assertThat(list.contains(IpAddress.parse("11.0.0.0"))).isFalse();
        assertThat(list.contains(IpAddress.parse("2001:db9::"))).isFalse();
    }

    @Test
    void of_copiesTheCollection() {
        List<Cidr> source = new ArrayList<>(List.of(Cidr.parse("10.0.0.0/8")));
        CidrList list = CidrList.of(source);

        source.add(Cidr.parse("192.168.0.0/16"));

        assertThat(list.cidrs()).containsExactly(Cidr.parse("10.0.0.0/8"));
        assertThat(list.contains(IpAddress.parse("192.168.0.1"))).isFalse();
        assertThatThrownBy(() -> list.cidrs().add(Cidr.parse("::1"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void nulls_areRejectedNamingTheParameter() {
        List<Cidr> withNull = new ArrayList<>();
        withNull.add(null);

        assertThatNullPointerException().isThrownBy(() -> CidrList.parse(null)).withMessage("text");
        assertThatNullPointerException().isThrownBy(() -> CidrList.of(null)).withMessage("cidrs");
        assertThatNullPointerException().isThrownBy(() -> CidrList.of(withNull)).withMessage("cidrs contains null");
        assertThatNullPointerException()
                .isThrownBy(() -> CidrList.empty().contains(null))
                .withMessage("address");
    }
}

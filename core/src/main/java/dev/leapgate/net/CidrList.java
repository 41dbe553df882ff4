package dev.leapgate.net;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * An ordered list of {@link Cidr} blocks, such as the trusted proxies of a {@link
 * ClientIpResolver}. An address is contained if any block contains it.
 *
 * <p>Concurrency: immutable (a private array that is never written after construction), so one
 * instance is shared by all request threads without synchronization.
 */
public final class CidrList {

    private static final CidrList EMPTY = new CidrList(new Cidr[0]);

    private final Cidr[] cidrs;

    private CidrList(Cidr[] cidrs) {
        this.cidrs = cidrs;
    }

    /** The list that contains no address. */
    public static CidrList empty() {
        return EMPTY;
    }

    public static CidrList of(Collection<Cidr> cidrs) {
        Objects.requireNonNull(cidrs, "cidrs");
        Cidr[] copy = cidrs.toArray(new Cidr[0]);
        for (Cidr cidr : copy) {
            Objects.requireNonNull(cidr, "cidrs contains null");
        }
        return new CidrList(copy);
    }

    /**
     * Parses blocks separated by commas and/or whitespace (spaces, tabs, line breaks), as written
     * in a configuration file: {@code "10.0.0.0/8, 192.168.0.0/16 ::1"}. Blank text is the empty
     * list.
     *
     * @throws IllegalArgumentException naming the first invalid block, see {@link Cidr#parse}
     */
    public static CidrList parse(String text) {
        Objects.requireNonNull(text, "text");
        ArrayList<Cidr> parsed = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            while (i < n && isSeparator(text.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < n && !isSeparator(text.charAt(i))) {
                i++;
            }
            if (i > start) {
                parsed.add(Cidr.parse(text.substring(start, i)));
            }
        }
        return parsed.isEmpty() ? EMPTY : new CidrList(parsed.toArray(new Cidr[0]));
    }

    private static boolean isSeparator(char c) {
        return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /** Whether any block contains the address. A linear scan: trusted-proxy lists are short. */
    public boolean contains(IpAddress address) {
        Objects.requireNonNull(address, "address");
        for (Cidr cidr : cidrs) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    public boolean isEmpty() {
        return cidrs.length == 0;
    }

    /** The blocks, in the order given; unmodifiable. */
    public List<Cidr> cidrs() {
        return List.of(cidrs);
    }

    /** The blocks in canonical form, separated by ", ", so that {@link #parse} reads it back. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Cidr cidr : cidrs) {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(cidr);
        }
        return text.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CidrList other && Arrays.equals(cidrs, other.cidrs);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(cidrs);
    }
}

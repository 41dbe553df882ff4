package dev.leapgate.net;

import dev.leapgate.internal.ListSeparators;
import dev.leapgate.internal.Shown;
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
     * @throws IllegalArgumentException naming every invalid entry with the reason (see {@link
     *     Cidr#parse}), and the whole value when there is more than one entry
     */
    public static CidrList parse(String text) {
        Objects.requireNonNull(text, "text");
        List<String> entries = entries(text);
        ArrayList<Cidr> parsed = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (int e = 0; e < entries.size(); e++) {
            String entry = entries.get(e);
            try {
                parsed.add(Cidr.parse(entry));
            } catch (IllegalArgumentException invalid) {
                String misjoined = ListSeparators.misjoined(entry);
                problems.add(
                        misjoined != null
                                ? misjoined
                                : isName(entry)
                                        ? "invalid CIDR " + Shown.quoted(entry)
                                                + ": not an IP address; names are not resolved:"
                                                + " write an address, e.g. 127.0.0.1 or ::1"
                                        : invalid.getMessage() + hint(entries, e));
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    String.join("; ", problems) + (entries.size() > 1 ? " (in " + Shown.quoted(text) + ")" : ""));
        }
        return parsed.isEmpty() ? EMPTY : new CidrList(parsed.toArray(new Cidr[0]));
    }

    /** The entries of a list: the text between separators. */
    public static List<String> entries(String text) {
        List<String> entries = new ArrayList<>();
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
                entries.add(text.substring(start, i));
            }
        }
        return entries;
    }

    /** What the likely mistake is, for an entry that is not a block. */
    private static String hint(List<String> entries, int e) {
        String entry = entries.get(e);
        if (entry.startsWith("/") && e > 0) {
            return "; no space is allowed inside a block: write " + entries.get(e - 1) + entry;
        }
        return "";
    }

    /** Whether an entry looks like a host name, which a list of addresses never resolves. */
    private static boolean isName(String entry) {
        return !entry.isEmpty() && Character.isLetter(entry.charAt(0)) && entry.indexOf(':') < 0;
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

package dev.leapgate.rule;

import dev.leapgate.Origin;
import dev.leapgate.internal.ListSeparators;
import dev.leapgate.internal.Shown;
import dev.leapgate.net.Cidr;
import dev.leapgate.net.CidrList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A set of origins: IP ranges (CIDR blocks or single addresses, IPv4 and IPv6) and identifiers
 * (API keys, user names). Used for origins exempt from every limit and for origins always rejected.
 *
 * <p>Written as a comma- or space-separated list: {@code 10.0.0.0/8, 127.0.0.1, ::1, batch-job}.
 * An entry that parses as an IP address or CIDR block is a range; anything else is an identifier.
 * Immutable.
 */
public final class OriginList {

    private static final OriginList EMPTY = new OriginList(CidrList.empty(), Set.of());

    private final CidrList ranges;
    private final Set<String> ids;

    private OriginList(CidrList ranges, Set<String> ids) {
        this.ranges = ranges;
        this.ids = ids;
    }

    public static OriginList empty() {
        return EMPTY;
    }

    /**
     * Parses a list.
     *
     * @throws IllegalArgumentException for entries that look like IP ranges or addresses (a {@code
     *     /}, or digits with dots or colons) but are not valid ones, naming every such entry
     */
    public static OriginList parse(String text) {
        Objects.requireNonNull(text, "text");
        List<Cidr> ranges = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> entries = CidrList.entries(text);
        for (int e = 0; e < entries.size(); e++) {
            String entry = entries.get(e);
            try {
                ranges.add(Cidr.parse(entry));
            } catch (IllegalArgumentException notARange) {
                String misjoined = ListSeparators.misjoined(entry);
                String misread = ListSeparators.misreadAddress(entry);
                if (misjoined != null) {
                    problems.add(misjoined);
                } else if (misread != null) {
                    problems.add(misread);
                } else if (entry.startsWith("/") && e > 0) {
                    problems.add(notARange.getMessage() + "; no space is allowed inside a block: write "
                            + entries.get(e - 1) + entry);
                } else if (entry.indexOf('/') >= 0 || looksLikeAddress(entry)) {
                    problems.add(notARange.getMessage());
                } else {
                    ids.add(entry);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    String.join("; ", problems) + (entries.size() > 1 ? " (in " + Shown.quoted(text) + ")" : ""));
        }
        return new OriginList(CidrList.of(ranges), Set.copyOf(ids));
    }

    /** Digits, dots and colons only: meant as an address, so a typo must not become an identifier. */
    private static boolean looksLikeAddress(String entry) {
        return entry.chars().allMatch(c -> Character.isDigit(c) || c == '.' || c == ':')
                && entry.chars().anyMatch(c -> c == '.' || c == ':');
    }

    /** The blocks of addresses in the list. */
    public CidrList ranges() {
        return ranges;
    }

    /** The identifiers in the list (API keys, user names): what is not an address. */
    public Set<String> identifiers() {
        return ids;
    }

    public boolean isEmpty() {
        return ranges.isEmpty() && ids.isEmpty();
    }

    /** Whether the origin is in the list: its IP in a range, or its identifier listed. */
    public boolean contains(Origin origin) {
        Objects.requireNonNull(origin, "origin");
        if (origin.ip() != null) {
            return !ranges.isEmpty() && ranges.contains(origin.ip());
        }
        return !ids.isEmpty() && ids.contains(origin.id());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OriginList other && ranges.cidrs().equals(other.ranges.cidrs()) && ids.equals(other.ids);
    }

    @Override
    public int hashCode() {
        return ranges.cidrs().hashCode() * 31 + ids.hashCode();
    }

    /**
     * As {@link #toString()}, with each identifier by its fingerprint ({@link Origin#secret}), as the
     * log and the status name a client whose identifiers are secrets (API keys).
     */
    public String fingerprinted() {
        List<String> all = new ArrayList<>();
        ranges.cidrs().forEach(c -> all.add(c.toString()));
        ids.stream().map(id -> Origin.secret(id).toString()).sorted().forEach(all::add);
        return String.join(", ", all);
    }

    @Override
    public String toString() {
        List<String> all = new ArrayList<>();
        ranges.cidrs().forEach(c -> all.add(c.toString()));
        all.addAll(ids.stream().sorted().toList());
        return String.join(", ", all);
    }
}

package dev.leapgate.internal;

import dev.leapgate.net.Cidr;
import dev.leapgate.net.IpAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Leapgate's lists of addresses ({@code trusted-proxies}, {@code status-allow}, {@code exempt},
 * {@code deny}) separate entries with commas and whitespace. Other formats join theirs with
 * {@code ;} or {@code |}, which makes one entry of several blocks: that entry's own parse error
 * ("prefix length must be between 0 and 32") would blame a prefix that is fine, and a list of
 * origins would take it for one identifier that no client has, so that the addresses in it are
 * silently neither exempted nor denied. So would an address written as other formats write one, in
 * brackets or with a zone ({@link #misreadAddress}).
 */
public final class ListSeparators {

    /** The separators of other formats, which Leapgate's lists do not take. */
    private static final String FOREIGN = ";|";

    private ListSeparators() {}

    /**
     * The problem with an entry that joins IP addresses or blocks with {@code ;} or {@code |},
     * naming the list to write instead; null for any other entry (one whose parts are not all
     * blocks, such as an identifier that holds a {@code ;}, is left to its own reading).
     */
    public static String misjoined(String entry) {
        int at = firstForeign(entry);
        if (at < 0) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= entry.length(); i++) {
            if (i == entry.length() || FOREIGN.indexOf(entry.charAt(i)) >= 0) {
                if (i > start) {
                    parts.add(entry.substring(start, i));
                }
                start = i + 1;
            }
        }
        if (parts.isEmpty() || !parts.stream().allMatch(ListSeparators::isBlock)) {
            return null;
        }
        return "invalid CIDR " + Shown.quoted(entry) + ": entries are separated by commas or spaces, not '"
                + entry.charAt(at) + "': write " + String.join(", ", parts);
    }

    private static int firstForeign(String entry) {
        for (int i = 0; i < entry.length(); i++) {
            if (FOREIGN.indexOf(entry.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isBlock(String text) {
        try {
            Cidr.parse(text);
            return true;
        } catch (IllegalArgumentException notABlock) {
            return false;
        }
    }

    /**
     * The problem with an entry that would be read as an identifier though it is an address, or
     * null: an IPv6 address in brackets or with a zone ({@code [2001:db8::1]}, {@code
     * fe80::1%eth0}), as a URL or a link-local socket writes it, which no client's address is
     * compared with.
     */
    public static String misreadAddress(String entry) {
        if (entry.length() > 2
                && entry.charAt(0) == '['
                && entry.endsWith("]")
                && isAddress(entry.substring(1, entry.length() - 1))) {
            return Shown.quoted(entry) + " is an address in brackets, as in a URL: write "
                    + entry.substring(1, entry.length() - 1);
        }
        int zone = entry.indexOf('%');
        if (zone > 0 && isAddress(entry.substring(0, zone))) {
            return Shown.quoted(entry) + " has a zone (" + entry.substring(zone)
                    + "), which no client's address carries: write " + entry.substring(0, zone);
        }
        return null;
    }

    /** Whether {@code text} is an IP address ({@link IpAddress#parse} takes it). */
    public static boolean isAddress(String text) {
        try {
            IpAddress.parse(text);
            return true;
        } catch (IllegalArgumentException notAnAddress) {
            return false;
        }
    }
}

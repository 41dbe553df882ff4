package dev.leapgate.net;

import java.util.List;
import java.util.ListIterator;

/**
 * Reads the hops of a forwarding header from right to left, the order in which they can be
 * trusted: the rightmost one was written by the proxy nearest to this server.
 *
 * <p>A header may be repeated; its values are one list in order (RFC 9110 section 5.3), so the
 * scanner walks the values from the last to the first and each value from its end. Each value is
 * scanned on its own, so an unbalanced quote a client put in an earlier line cannot swallow the
 * line a proxy added after it.
 *
 * <p>Work is bounded per step: an element is never scanned beyond its scanner's longest element
 * ({@link #MAX_ELEMENT_LENGTH} for {@code X-Forwarded-For}, {@link
 * ForwardedScanner#MAX_FORWARDED_ELEMENT_LENGTH} for {@code Forwarded}), and the caller bounds
 * the number of steps; each character is scanned a bounded number of times, so the work is linear
 * in the part of the header read. Never throws on content.
 *
 * <p>Not thread-safe: one instance serves one call.
 */
abstract class HopScanner {

    /**
     * The longest {@code X-Forwarded-For} element considered; a longer one is {@link
     * Step#UNUSABLE}. A node is at most about 60 characters ({@code [ipv6%zone]:port}).
     */
    static final int MAX_ELEMENT_LENGTH = 512;

    enum Step {
        /** No more elements. */
        END,
        /** An empty list element or header value: not a hop, skipped (RFC 9110 section 5.6.1). */
        EMPTY,
        /** A hop: its node text is {@code nodeText[nodeFrom, nodeTo)}, still to be parsed. */
        NODE,
        /** An element that cannot be read as a hop; the scanner cannot go further left. */
        UNUSABLE
    }

    String nodeText;
    int nodeFrom;
    int nodeTo;

    private final ListIterator<String> values;
    /** The header value being scanned, or null to take the previous one. */
    String value;
    /** The part of {@link #value} still to scan is {@code [0, end)}. */
    int end;

    HopScanner(List<String> headerValues) {
        this.values = headerValues == null ? null : headerValues.listIterator(headerValues.size());
    }

    final Step next() {
        if (value == null) {
            if (values == null || !values.hasPrevious()) {
                return Step.END;
            }
            String previous = values.previous();
            if (previous == null) {
                return Step.EMPTY;
            }
            value = previous;
            end = previous.length();
        }
        return nextInValue();
    }

    /**
     * Reads the element that ends at {@link #end} in {@link #value}, moves {@link #end} before it,
     * and sets {@link #value} to null once the value is used up.
     */
    abstract Step nextInValue();

    /** Moves past an element that starts after the separator at {@code separator} (or -1). */
    final void consumeUpTo(int separator) {
        end = separator;
        if (separator < 0) {
            value = null;
        }
    }

    /** Records {@code text[from, to)} as the node of this step, for the node parser to judge. */
    final Step node(String text, int from, int to) {
        nodeText = text;
        nodeFrom = from;
        nodeTo = to;
        return Step.NODE;
    }
}

package dev.leapgate.net;

import java.util.List;

/**
 * {@code X-Forwarded-For}: a de facto standard without a grammar; in practice comma-separated
 * nodes with optional whitespace, each an address with an optional port ({@code 192.0.2.1:5678},
 * {@code [2001:db8::1]:80}), or a placeholder such as {@code unknown}. No quoting.
 */
final class XForwardedForScanner extends HopScanner {

    XForwardedForScanner(List<String> headerValues) {
        super(headerValues);
    }

    @Override
    Step nextInValue() {
        String text = value;
        int to = end;
        // A comma at `tooFar` would still leave an element of MAX_ELEMENT_LENGTH; reaching it
        // without a comma means the element is longer.
        int tooFar = to - MAX_ELEMENT_LENGTH - 1;
        int i = to - 1;
        while (i >= 0 && text.charAt(i) != ',') {
            if (i == tooFar) {
                value = null;
                return Step.UNUSABLE;
            }
            i--;
        }
        consumeUpTo(i);
        for (int j = i + 1; j < to; j++) {
            if (!IpLiteralParser.isOws(text.charAt(j))) {
                return node(text, i + 1, to);
            }
        }
        return Step.EMPTY;
    }
}

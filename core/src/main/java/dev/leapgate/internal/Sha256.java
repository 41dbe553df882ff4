package dev.leapgate.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests of text, in hex: for names that must not show what they name. */
public final class Sha256 {

    private Sha256() {}

    /** The first {@code digits} (1 to 64) hex digits of the SHA-256 of the UTF-8 bytes of {@code text}. */
    public static String hex(String text, int digits) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, digits);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}

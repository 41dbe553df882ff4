package dev.leapgate.boot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin;

/**
 * A {@code leapgate.*} value of application.yml as written in the file. application.yml is read as
 * YAML 1.1, which takes an unquoted {@code 010} for the octal number 8, {@code 0x10} for 16, {@code
 * 1:30} for 90 (base 60), {@code 1_000} for 1000 and {@code on}, {@code yes}, {@code off}, {@code no}
 * for booleans; Boot hands on the number or boolean, not the text. Leapgate's values are text for
 * its own reader, the same on every surface, so a value YAML read as something other than written
 * is reported, with the text from the file (the value's origin: the file and the place in it).
 */
final class WrittenYaml {

    private WrittenYaml() {}

    /**
     * The property {@code name} as the binder takes it from {@code sources}: from the first source
     * that has it; null if none has it.
     */
    static ConfigurationProperty effective(
            Iterable<ConfigurationPropertySource> sources, ConfigurationPropertyName name) {
        for (ConfigurationPropertySource source : sources) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }

    /**
     * The plain scalar written for {@code property}, when YAML read it as a number or a boolean
     * (a quoted value is a string, as written); null when its value is text, or its file cannot be
     * read.
     */
    static String written(ConfigurationProperty property) {
        TextResourceOrigin origin = textOrigin(property);
        if (property.getValue() instanceof CharSequence || origin == null) {
            return null;
        }
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(origin.getResource().getInputStream(), StandardCharsets.UTF_8))) {
            String line = reader.lines()
                    .skip(origin.getLocation().getLine())
                    .findFirst()
                    .orElse("");
            int column = origin.getLocation().getColumn();
            // A YAML number or boolean has no blank; a comment, or the next item of a flow
            // collection, may follow it.
            String token = column < line.length() ? line.substring(column).split("[\\s,}\\]#]", 2)[0] : "";
            return token.isEmpty() ? null : token;
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /**
     * Why {@code property}, Leapgate's setting {@code key}, is not what its writer wrote: YAML read
     * it as another number (a decimal number written with a plus, or 1.50 for 1.5, is the same) or
     * as a boolean from another word than true or false; null if it is as written.
     */
    static String misread(String key, ConfigurationProperty property) {
        String written = written(property);
        Object value = property.getValue();
        if (written == null || sameAsWritten(written, value)) {
            return null;
        }
        TextResourceOrigin origin = textOrigin(property);
        String file = origin.getResource().getFilename() != null
                ? origin.getResource().getFilename()
                : origin.getResource().getDescription();
        return key + ": '" + written + "' is read by YAML 1.1 as " + value + ", not as written (" + file + ", line "
                + (origin.getLocation().getLine() + 1) + "); write the value in quotes, '" + written
                + "', for Leapgate to read it as written";
    }

    private static boolean sameAsWritten(String written, Object value) {
        if (value instanceof Boolean) {
            return written.equalsIgnoreCase(value.toString());
        }
        if (value instanceof Number) {
            try {
                return new BigDecimal(written).compareTo(new BigDecimal(value.toString())) == 0;
            } catch (NumberFormatException notDecimal) { // 0x10, 1:30, 1_000, .inf
                return false;
            }
        }
        return true;
    }

    /** The place in a text file {@code property} was read from; null if it was not read from one. */
    private static TextResourceOrigin textOrigin(ConfigurationProperty property) {
        Origin from = property.getOrigin(); // a PropertySourceOrigin, around the file's
        while (from != null && !(from instanceof TextResourceOrigin)) {
            from = from instanceof PropertySourceOrigin wrapped ? wrapped.getOrigin() : from.getParent();
        }
        return from instanceof TextResourceOrigin origin && origin.getResource() != null && origin.getLocation() != null
                ? origin
                : null;
    }
}

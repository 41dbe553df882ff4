package dev.leapgate.jaxrs;

import dev.leapgate.http.PathPattern;
import dev.leapgate.http.RequestPath;
import java.util.List;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;

/**
 * The route template that names a JAX-RS request for rate limiting: the {@code @Path} templates it
 * was matched through, joined, without their regular expressions: {@code /users/{id}}, never the
 * raw URL {@code /users/42}.
 *
 * <p>Rules match this text with {@link PathPattern} semantics after the usual {@link RequestPath}
 * normalization, which spells the braces of a template variable as {@code %7B} and {@code %7D}: a
 * template variable is one literal segment, so {@code GET /users/{id}} and {@code GET /users/*}
 * match the template {@code /users/{id}}, and so does {@code /users/**}. Annotation rules use
 * {@link PathPattern#route}, a literal pattern that matches their own template and no other.
 */
final class RouteTemplate {

    private RouteTemplate() {}

    /** The template of a request after matching, from Jersey's matched templates (innermost first). */
    static String of(ExtendedUriInfo uriInfo) {
        List<UriTemplate> matched = uriInfo.getMatchedTemplates();
        StringBuilder path = new StringBuilder(64);
        for (int i = matched.size() - 1; i >= 0; i--) {
            appendSegments(matched.get(i).getTemplate(), path);
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    /**
     * Joins {@code @Path} values, outermost first: {@code ("users", "{id: \\d+}")} gives {@code
     * /users/{id}}. Empty segments are dropped, so slashes at either end of a value do not matter.
     */
    static String join(String... templates) {
        StringBuilder path = new StringBuilder(64);
        for (String template : templates) {
            if (template != null) {
                appendSegments(template, path);
            }
        }
        return path.length() == 0 ? "/" : path.toString();
    }

    private static void appendSegments(String template, StringBuilder out) {
        String plain = withoutRegex(template);
        int i = 0;
        int length = plain.length();
        while (i < length) {
            int end = plain.indexOf('/', i);
            if (end < 0) {
                end = length;
            }
            if (end > i) {
                out.append('/').append(plain, i, end);
            }
            i = end + 1;
        }
    }

    /**
     * {@code {name: regex}} becomes {@code {name}}; braces nested in the regex (a quantifier such as
     * {@code {3}}) and escaped characters are skipped. A template without variables is returned as
     * it is.
     */
    static String withoutRegex(String template) {
        if (template.indexOf('{') < 0) {
            return template;
        }
        StringBuilder out = new StringBuilder(template.length());
        int i = 0;
        int length = template.length();
        while (i < length) {
            char c = template.charAt(i);
            if (c != '{') {
                out.append(c);
                i++;
                continue;
            }
            int nameEnd = i + 1;
            while (nameEnd < length && template.charAt(nameEnd) != ':' && template.charAt(nameEnd) != '}') {
                nameEnd++;
            }
            out.append('{').append(template.substring(i + 1, nameEnd).strip()).append('}');
            if (nameEnd < length && template.charAt(nameEnd) == ':') {
                int depth = 1;
                int k = nameEnd + 1;
                while (k < length && depth > 0) {
                    char r = template.charAt(k);
                    if (r == '\\') {
                        k++;
                    } else if (r == '{') {
                        depth++;
                    } else if (r == '}') {
                        depth--;
                    }
                    k++;
                }
                i = k;
            } else {
                i = nameEnd + 1;
            }
        }
        return out.toString();
    }
}

package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.testing.JavaSnippets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every Java snippet of the documents compiles as it is written, with its imports, against the
 * published modules and the servlet and JAX-RS APIs: a user can paste it into a file. (This module
 * is the one whose class path has all of them.) A document's snippets are compiled together, as
 * one application, since one may use another's class. The snippets whose behaviour the text
 * describes also run, in the tests of the module they document.
 */
class DocumentationSnippetsTest {

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "jaxrs-filter/README.md"})
    void everySnippet_compilesWithItsImports(String document) throws Exception {
        List<String> snippets = JavaSnippets.of(JavaSnippets.document(document));

        ClassLoader compiled = JavaSnippets.compile(snippets);

        assertThat(snippets).as(document).hasSizeGreaterThanOrEqualTo(4);
        for (String snippet : snippets) {
            String type = JavaSnippets.typeName(snippet);
            assertThat(compiled.loadClass(type).getSimpleName()).as(document).isEqualTo(type);
        }
    }
}

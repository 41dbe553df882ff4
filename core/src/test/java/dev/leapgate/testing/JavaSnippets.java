package dev.leapgate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The Java code blocks of the project's Markdown documents, compiled as they are written, so that
 * a snippet that stops compiling (a renamed method, a missing import) fails the build, and a test
 * can run what the documentation tells users to write.
 *
 * <p>A snippet is a fenced block opened by a line {@code ```java}. Each must be a whole
 * compilation unit (imports, then one or more top-level types, no package): what a user can paste
 * into a file. Snippets are compiled in memory against the test's class path.
 */
public final class JavaSnippets {

    private static final Pattern BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern TYPE_NAME =
            Pattern.compile("(?m)^(?:public\\s+|final\\s+|abstract\\s+)*(?:class|record|interface|enum)\\s+(\\w+)");

    private JavaSnippets() {}

    /** A document of the repository, by its path from the repository root (e.g. {@code README.md}). */
    public static Path document(String relativePath) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path candidate = dir.resolve(relativePath);
            if (Files.exists(dir.resolve("CONFIGURATION.md")) && Files.exists(candidate)) {
                return candidate;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "no " + relativePath + " above " + Path.of("").toAbsolutePath());
    }

    /** Every {@code ```java} block of a document, in order. */
    public static List<String> of(Path document) {
        String text;
        try {
            text = Files.readString(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** The name of the first top-level type a snippet declares. */
    public static String typeName(String snippet) {
        Matcher m = TYPE_NAME.matcher(snippet);
        if (!m.find()) {
            throw new IllegalArgumentException("the snippet declares no class, record, interface or enum:\n" + snippet);
        }
        return m.group(1);
    }

    /**
     * Compiles the snippets together (each one unit, named after its first type) and returns a
     * class loader that holds them.
     *
     * @throws AssertionError listing the compiler's errors with the snippet they are in
     */
    public static ClassLoader compile(List<String> snippets) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("no Java compiler: the tests need a JDK, not a JRE");
        }
        List<JavaFileObject> units = new ArrayList<>();
        for (String snippet : snippets) {
            units.add(new Source(typeName(snippet), snippet));
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<String, ByteArrayOutputStream> classes = new HashMap<>();
        StandardJavaFileManager standard = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null);
        JavaFileManager inMemory = new ForwardingJavaFileManager<>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(
                    Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".class"), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return classes.computeIfAbsent(className, n -> new ByteArrayOutputStream());
                    }
                };
            }
        };
        List<String> options =
                List.of("-classpath", System.getProperty("java.class.path"), "-proc:none", "-Xlint:none");
        boolean ok = compiler.getTask(null, inMemory, diagnostics, options, null, units)
                .call();
        if (!ok) {
            StringBuilder errors = new StringBuilder("documentation snippets do not compile:");
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.append("\n  ")
                            .append(d.getSource() == null ? "" : d.getSource().getName())
                            .append(':')
                            .append(d.getLineNumber())
                            .append(": ")
                            .append(d.getMessage(Locale.ROOT));
                }
            }
            throw new AssertionError(errors.toString());
        }
        return new ClassLoader(JavaSnippets.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                ByteArrayOutputStream bytes = classes.get(name);
                if (bytes == null) {
                    throw new ClassNotFoundException(name);
                }
                byte[] b = bytes.toByteArray();
                return defineClass(name, b, 0, b.length);
            }
        };
    }

    private static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String typeName, String code) {
            super(URI.create("string:///" + typeName + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }
}

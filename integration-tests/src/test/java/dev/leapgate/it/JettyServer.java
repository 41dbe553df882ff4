package dev.leapgate.it;

import jakarta.servlet.ServletContext;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

/** Embedded Jetty 12.1 (ee10) with {@link WebAppContext}s. */
final class JettyServer implements Container.Server {

    private final Server server = new Server();
    private final ServerConnector connector = new ServerConnector(server);
    private final Map<String, WebAppContext> contexts = new LinkedHashMap<>();

    JettyServer() {
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setStopTimeout(5_000);
    }

    @Override
    public void deploy(String contextPath, Path webapp, Path descriptor, Map<String, Object> attributes) {
        WebAppContext context = new WebAppContext();
        context.setContextPath(contextPath.isEmpty() ? "/" : contextPath);
        context.setBaseResourceAsPath(webapp);
        context.setDescriptor(descriptor.toString());
        // Application classes come from the test class path, as the test's own: one ManualClock class.
        context.setParentLoaderPriority(true);
        context.setThrowUnavailableOnStartupException(true);
        attributes.forEach(context::setAttribute);
        contexts.put(contextPath, context);
    }

    @Override
    public void start() throws Exception {
        server.setHandler(new ContextHandlerCollection(contexts.values().toArray(new WebAppContext[0])));
        server.start();
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public ServletContext servletContext(String contextPath) {
        return contexts.get(contextPath).getServletContext();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}

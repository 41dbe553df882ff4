package dev.leapgate.it;

import jakarta.servlet.ServletContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.loader.WebappLoader;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;

/** Embedded Tomcat 11 with web applications deployed from their directories ({@code addWebapp}). */
final class TomcatServer implements Container.Server {

    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector();
    private final Path baseDir;
    private final Map<String, Context> contexts = new LinkedHashMap<>();

    TomcatServer() {
        try {
            baseDir = Files.createTempDirectory("leapgate-it-tomcat");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        tomcat.setBaseDir(baseDir.toString());
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        // Tomcat's default web.xml would add the JSP servlet, whose jar is not here: add just the
        // default servlet, which answers what no mapping serves, as in a usual deployment.
        tomcat.setAddDefaultWebXmlToWebapp(false);
    }

    @Override
    public void deploy(String contextPath, Path webapp, Path descriptor, Map<String, Object> attributes) {
        Context context = tomcat.addWebapp(contextPath, webapp.toString());
        Tomcat.addServlet(context, "default", "org.apache.catalina.servlets.DefaultServlet");
        context.addServletMappingDecoded("/", "default");
        // Application classes come from the test class path, as the test's own: one ManualClock class.
        context.setParentClassLoader(TomcatServer.class.getClassLoader());
        WebappLoader loader = new WebappLoader();
        loader.setDelegate(true);
        context.setLoader(loader);
        ((StandardJarScanner) context.getJarScanner()).setScanClassPath(false);
        ((StandardContext) context).setAltDDName(descriptor.toString());
        // The attributes must be there before the filters start: an initializer runs first.
        context.addServletContainerInitializer(
                (classes, servletContext) -> attributes.forEach(servletContext::setAttribute), null);
        contexts.put(contextPath, context);
    }

    @Override
    public void start() throws Exception {
        tomcat.start();
        for (Map.Entry<String, Context> context : contexts.entrySet()) {
            if (context.getValue().getState() != LifecycleState.STARTED) {
                throw new IllegalStateException("Tomcat did not start the application at '" + context.getKey() + "': "
                        + context.getValue().getState());
            }
        }
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
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            TestWebApp.deleteTree(baseDir);
        }
    }
}

package dev.leapgate.it;

import jakarta.servlet.ServletContext;
import java.nio.file.Path;
import java.util.Map;

/**
 * The servlet containers the web.xml suite runs on, each deploying the test application from its
 * directory and {@code WEB-INF/web.xml} as a user's deployment would.
 */
enum Container {
    JETTY,
    TOMCAT;

    /** A server on a free loopback port, not started. */
    Server newServer() {
        return this == JETTY ? new JettyServer() : new TomcatServer();
    }

    /** The container and its version, as found on the class path: {@code Tomcat 10.1.52}. */
    @Override
    public String toString() {
        return this == JETTY
                ? "Jetty " + org.eclipse.jetty.util.Jetty.VERSION + " (ee10)"
                : org.apache.catalina.util.ServerInfo.getServerInfo().replace("Apache Tomcat/", "Tomcat ");
    }

    /** One embedded server with one or more web applications. */
    interface Server extends AutoCloseable {

        /**
         * Deploys the application in {@code webapp} at {@code contextPath} ({@code ""} for the root),
         * from {@code descriptor} (its {@code WEB-INF/web.xml}, or another descriptor in place of
         * it), with {@code attributes} in the servlet context before any filter or servlet starts.
         * Application classes come from the test class path.
         */
        void deploy(String contextPath, Path webapp, Path descriptor, Map<String, Object> attributes);

        /** Starts the server; a deployment that fails to start fails this. */
        void start() throws Exception;

        int port();

        /** The servlet context of the deployment at {@code contextPath}. */
        ServletContext servletContext(String contextPath);

        @Override
        void close() throws Exception;
    }
}

/**
 * The sample web application the integration tests deploy through {@code src/test/webapp/WEB-INF/web.xml}:
 * servlets (synchronous, asynchronous, failing, timing out, slow) and a small JAX-RS API. It knows
 * nothing of Leapgate; the web.xml alone protects it.
 */
package dev.leapgate.it.app;

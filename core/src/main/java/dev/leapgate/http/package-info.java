/**
 * Framework-neutral HTTP pieces the servlet and JAX-RS adapters share: {@link
 * dev.leapgate.http.RequestPath} turns a raw request path into one canonical key, and {@link
 * dev.leapgate.http.PathPattern} matches such keys against rule patterns whose text is the bounded
 * resource name.
 */
package dev.leapgate.http;

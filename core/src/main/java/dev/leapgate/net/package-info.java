/**
 * Client IP for per-client limits, framework-neutral: the servlet and JAX-RS adapters hand over
 * the peer address and the forwarding header values as strings.
 *
 * <ul>
 *   <li>{@link dev.leapgate.net.IpAddress}: IPv4 and IPv6 literals, parsed strictly and without the
 *       name service; IPv4-mapped IPv6 is IPv4.
 *   <li>{@link dev.leapgate.net.Cidr}, {@link dev.leapgate.net.CidrList}: address blocks, such as
 *       the trusted proxies.
 *   <li>{@link dev.leapgate.net.ClientIpResolver}: peer plus {@code Forwarded} or {@code
 *       X-Forwarded-For} to the client, believing headers only from trusted proxies.
 *   <li>{@link dev.leapgate.net.ClientKey}: a client as one {@code long}, IPv6 grouped by prefix.
 * </ul>
 */
package dev.leapgate.net;

/** JAX-RS adapter. */
package dev.leapgate.jaxrs;

/**
 * The Spring Boot auto-configuration of Leapgate: {@link dev.leapgate.boot.LeapgateAutoConfiguration}
 * and the {@code leapgate.*} properties ({@link dev.leapgate.boot.LeapgateProperties}).
 */
package dev.leapgate.boot;

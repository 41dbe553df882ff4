package org.springframework.web.reactive;

/**
 * Stands in for spring-webflux's class of this name, which the build does not have: Boot's
 * {@code @ConditionalOnWebApplication(type = REACTIVE)} looks for it before it looks at the
 * application context, so a test can start a reactive application context
 * ({@code LeapgateAutoConfigurationTest.ReactiveApplication}) as a WebFlux application has one.
 */
public final class HandlerResult {
    private HandlerResult() {}
}

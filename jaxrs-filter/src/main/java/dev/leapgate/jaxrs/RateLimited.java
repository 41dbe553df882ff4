package dev.leapgate.jaxrs;

import dev.leapgate.rule.FlowRule;
import dev.leapgate.rule.OnExcess;
import dev.leapgate.rule.Scope;
import dev.leapgate.rule.WindowMode;
import dev.leapgate.rule.WindowSpec;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A limit on a JAX-RS resource method, or on every resource method of a resource class. Each
 * annotation becomes one Leapgate rule matching exactly that method's HTTP method and route
 * template ({@code GET /users/{id}}), enforced together with the configured rules; the settings
 * and their checks are those of the configuration's {@code rule.*} keys ({@code CONFIGURATION.md}).
 *
 * <pre>{@code
 * @GET
 * @Path("{id}")
 * @RateLimited(limit = 10, window = "1s", scope = Scope.Kind.PER_ORIGIN)   // 10/s per client IP
 * @RateLimited(limit = 200, window = "1h", scope = Scope.Kind.PER_ORIGIN)  // and 200/h
 * public User get(@PathParam("id") String id) { ... }
 *
 * @POST
 * @Path("{id}/export")
 * @RateLimited(inFlight = 20)                                              // 20 at once
 * public Report export(@PathParam("id") String id) { ... }
 * }</pre>
 *
 * <p>A rule is either a rate ({@link #limit} requests per {@link #window}) or a concurrency limit
 * ({@link #inFlight}). Several annotations combine: a request is admitted only if all of them (and
 * every matching configured rule) admit it. On a class, an annotation applies to each resource
 * method of the class separately (each route has its own count; methods on one route, told apart by
 * media type, share it), in addition to the method's own annotations. Invalid values, and an
 * annotation on a method that is no resource method, fail the application's start with a message
 * naming the method.
 *
 * <p>Inherited as the JAX-RS annotations are: a resource method without one of its own takes
 * those of the nearest method it overrides, searched as JAX-RS searches for its {@code @Path} and
 * HTTP method (superclasses first, then interfaces), up to the method that declares them; a
 * resource class without one takes its nearest superclass's, else its interface's.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

    /**
     * The rule's name, sent to clients in the {@code RateLimit-Policy} and {@code RateLimit}
     * fields: 1 to 64 letters, digits, {@code -} or {@code _}, not {@code deny} (a denied origin's
     * rejection). Empty (the default): derived from
     * the class and method, {@code UserResource-get-1}.
     */
    String name() default "";

    /** Requests per {@link #window}, at least 1; 0 (the default) for a concurrency limit. */
    long limit() default 0;

    /** The window of {@link #limit}: {@code 100ms} to {@code 24h}, written {@code 1s}, {@code 10s}, {@code 1m}, {@code 1h}. */
    String window() default "";

    /** Buckets the window is cut into, 1 to 1000, dividing it exactly; with {@link #limit} only. */
    int buckets() default WindowSpec.DEFAULT_BUCKETS;

    /** {@link WindowMode#STRICT} (the default) or {@link WindowMode#SLIDING}; with {@link #limit} only. */
    WindowMode mode() default WindowMode.STRICT;

    /** Requests in flight at once, at least 1, instead of a rate; 0 (the default) for a rate. */
    long inFlight() default 0;

    /**
     * Who the limit counts: everyone together ({@link Scope.Kind#ALL}, the default), each origin
     * (by default the client IP) separately ({@link Scope.Kind#PER_ORIGIN}), or only {@link #origin}
     * ({@link Scope.Kind#ORIGIN}).
     */
    Scope.Kind scope() default Scope.Kind.ALL;

    /** The one origin limited with {@link Scope.Kind#ORIGIN}: an IP address or an identifier. */
    String origin() default "";

    /** The most origins tracked at once with {@link Scope.Kind#PER_ORIGIN}. */
    int maxOrigins() default FlowRule.DEFAULT_MAX_ORIGINS;

    /** What happens to a request over the limit; {@link OnExcess.Kind#REJECT} by default. */
    OnExcess.Kind onExcess() default OnExcess.Kind.REJECT;

    /** Longest wait for a paced turn ({@code PACE}, {@code WARM_UP_PACE}); empty: 500ms. */
    String maxQueue() default "";

    /** A cold rule starts at limit / coldFactor ({@code WARM_UP}, {@code WARM_UP_PACE}); 0: 3. */
    double coldFactor() default 0;

    /** Time a cold rule takes to reach the limit ({@code WARM_UP}, {@code WARM_UP_PACE}); empty: 10s. */
    String warmUp() default "";

    /** Longest wait for the next bucket ({@code BORROW}); empty: 500ms. */
    String maxWait() default "";

    /** The container of repeated {@link RateLimited} annotations. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE, ElementType.METHOD})
    @interface List {
        RateLimited[] value();
    }
}

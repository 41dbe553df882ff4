package dev.leapgate.http;

import dev.leapgate.Clock;
import dev.leapgate.Decision;
import dev.leapgate.Leapgate;
import dev.leapgate.Origin;
import dev.leapgate.Quota;
import dev.leapgate.Rejection;
import dev.leapgate.RuleSet;
import dev.leapgate.Sleeper;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.config.LeapgateConfig;
import dev.leapgate.config.OriginSource;
import dev.leapgate.config.RateLimitHeaders;
import dev.leapgate.config.ReloadingRules;
import dev.leapgate.config.ResponseSettings;
import dev.leapgate.net.ClientIpResolver;
import dev.leapgate.rule.FlowRule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * Everything an HTTP adapter needs, framework-neutral: from a request to a decision, and from a
 * decision to the header fields and response to send. The servlet filter and the JAX-RS provider
 * are thin shells around one of these, so both behave the same.
 *
 * <p>Per request: the path is normalized ({@link RequestPath}); if no rule can apply and no origin
 * is denied, the request passes at once, without resolving its origin or creating any state;
 * otherwise the origin is resolved (the client IP through the trusted-proxy rules, a header, or
 * the principal, as configured) and the {@link Leapgate} decides. A rules file, if configured, is
 * checked for changes lazily on this path at most once per reload interval ({@link
 * ReloadingRules}).
 *
 * <p>Concurrency: immutable configuration over a thread-safe {@link Leapgate}.
 */
public final class HttpGate {

    private final Leapgate leapgate;
    private final ClientIpResolver clientIp;
    private final OriginSource originSource;
    private final ResponseSettings response;
    private final ReloadingRules reloading; // null without a rules file
    private final Clock clock;

    private HttpGate(Builder builder) {
        LeapgateConfig config = builder.config;
        this.clock = builder.clock;
        this.clientIp = config.clientIp();
        this.originSource = config.origin();
        this.response = config.response();
        List<FlowRule> codeRules = List.copyOf(builder.codeRules);
        UnaryOperator<RuleSet> withCodeRules = rules -> rules.withRules(codeRules);
        this.leapgate = Leapgate.builder()
                .rules(withCodeRules.apply(
                        config.rulesFile().map(ConfigParser::readRulesFile).orElse(config.rules())))
                .clock(clock)
                .sleeper(builder.sleeper)
                .build();
        this.reloading = config.rulesFile()
                .map(file -> new ReloadingRules(file, config.reloadInterval(), clock, leapgate, withCodeRules))
                .orElse(null);
    }

    /**
     * Starts a gate for a configuration; a rules file it names is read now.
     *
     * @throws dev.leapgate.config.ConfigException if the rules file cannot be read or is invalid
     */
    public static Builder builder(LeapgateConfig config) {
        return new Builder(config);
    }

    /** The rule engine, for statistics and programmatic updates. */
    public Leapgate leapgate() {
        return leapgate;
    }

    /** The reloading rules file, if one is configured. */
    public java.util.Optional<ReloadingRules> rulesFile() {
        return java.util.Optional.ofNullable(reloading);
    }

    /** Decides on a request with one permit. */
    public Decision enter(HttpRequestView request) {
        if (reloading != null) {
            reloading.maybeReload();
        }
        // The origin is looked up only if a rule's pattern matches (or some origin is denied): a
        // request no rule applies to passes without reading its headers, and creates no state.
        return leapgate.enter(request.method(), RequestPath.normalize(request.rawPath()), () -> originOf(request), 1);
    }

    /** The origin of a request, as configured: client IP, a header's value, or the principal. */
    public Origin originOf(HttpRequestView request) {
        switch (originSource.kind()) {
            case HEADER -> {
                List<String> values = request.headers(originSource.headerName());
                String value = values.isEmpty() ? null : values.get(0).strip();
                if (value != null && !value.isEmpty()) {
                    return Origin.id(value);
                }
            }
            case PRINCIPAL -> {
                String principal = request.principal();
                if (principal != null && !principal.isEmpty()) {
                    return Origin.id(principal);
                }
            }
            case IP -> {}
        }
        // The IP: the configured source, and the fallback for a request without header or principal.
        // Without trusted proxies the peer is the client, and no forwarding header is worth reading.
        boolean proxied = !clientIp.trustedProxies().isEmpty();
        return clientIp.resolve(
                        request.remoteAddr(),
                        proxied ? request.headers("Forwarded") : List.of(),
                        proxied ? request.headers("X-Forwarded-For") : List.of())
                .map(ip -> Origin.ip(ip, clientIp.ipv6PrefixLength()))
                .orElse(Origin.unknown());
    }

    /**
     * Passes the rate-limit header fields for an admitted request to {@code header}: {@code
     * RateLimit-Policy} and {@code RateLimit} when configured to send them on every response and a
     * rule applied; nothing otherwise.
     */
    public void admittedHeaders(Decision decision, BiConsumer<String, String> header) {
        List<Quota> quotas = decision.quotas();
        if (response.headers() == RateLimitHeaders.ALL && !quotas.isEmpty()) {
            header.accept(RateLimitFields.RATE_LIMIT_POLICY, RateLimitFields.policy(quotas));
            header.accept(RateLimitFields.RATE_LIMIT, RateLimitFields.rateLimit(quotas));
        }
    }

    /** The complete response for a rejection: status, header fields, body. */
    public RejectionResponse rejection(Rejection rejection) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(
                RateLimitFields.RETRY_AFTER, Long.toString(RateLimitFields.retryAfterSeconds(rejection.retryAfter())));
        List<Quota> quotas = rejection.quotas();
        if (response.headers() != RateLimitHeaders.NONE && !quotas.isEmpty()) {
            headers.put(RateLimitFields.RATE_LIMIT_POLICY, RateLimitFields.policy(quotas));
            headers.put(RateLimitFields.RATE_LIMIT, RateLimitFields.rateLimit(quotas));
        }
        if (!response.problemBody()) {
            return new RejectionResponse(response.status(), headers, null, new byte[0]);
        }
        byte[] body = ProblemBody.json(rejection, response.status()).getBytes(StandardCharsets.UTF_8);
        return new RejectionResponse(response.status(), headers, ProblemBody.CONTENT_TYPE, body);
    }

    /** Builds an {@link HttpGate}. */
    public static final class Builder {
        private final LeapgateConfig config;
        private Clock clock = Clock.system();
        private Sleeper sleeper = Sleeper.system();
        private final List<FlowRule> codeRules = new ArrayList<>();

        private Builder(LeapgateConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** The clock; {@link Clock#system()} by default. Tests and demos pass a {@code ManualClock}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * Adds rules defined in code (an adapter's annotations), enforced after the configuration's
         * rules. A reloaded rules file replaces only its own rules; these stay.
         */
        public Builder addRules(Collection<FlowRule> rules) {
            for (FlowRule rule : Objects.requireNonNull(rules, "rules")) {
                codeRules.add(Objects.requireNonNull(rule, "rule"));
            }
            return this;
        }

        /**
         * @throws dev.leapgate.config.ConfigException if the rules file cannot be read or is invalid
         * @throws IllegalArgumentException if a rule added in code has the name of a configured rule
         */
        public HttpGate build() {
            return new HttpGate(this);
        }
    }
}

package dev.leapgate.boot;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.leapgate.Clock;
import dev.leapgate.ManualClock;
import dev.leapgate.config.ConfigParser;
import dev.leapgate.servlet.LeapgateFilter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The starter with Spring Security itself (the other tests use a stand-in, and run without it on
 * the class path, which it would secure): with {@code origin: principal} the filter runs just after
 * Spring Security's chain, counts each user apart, and says at the start that the requests the
 * chain answers itself pass no rule; the README's filter on a gate of its own limits those by
 * address. Runs in a surefire execution of its own (the module's pom).
 */
@Tag("spring-security")
class SpringSecurityTest {

    /** HTTP Basic for two users; every request must be authenticated. */
    static class Security {
        @Bean
        SecurityFilterChain chain(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("alice")
                            .password("{noop}alice-secret")
                            .roles("USER")
                            .build(),
                    User.withUsername("bob")
                            .password("{noop}bob-secret")
                            .roles("USER")
                            .build());
        }
    }

    /** The README's way: wrong passwords limited by address, before the chain, on a gate of its own. */
    static class GuessesByAddress {
        @Bean
        FilterRegistrationBean<LeapgateFilter> guessesByAddress(Clock clock) {
            // A filter that owns its gate, which it closes when the server stops it.
            LeapgateFilter guesses = LeapgateFilter.builder()
                    .config(ConfigParser.parse(
                            Map.of(
                                    "rule.guesses.match", "/**",
                                    "rule.guesses.limit", "3/1m",
                                    "rule.guesses.scope", "per-origin"),
                            "guesses"))
                    .clock(clock)
                    .build();
            FilterRegistrationBean<LeapgateFilter> registration = new FilterRegistrationBean<>(guesses);
            registration.setName("leapgateGuesses");
            registration.setOrder(-110);
            return registration;
        }
    }

    private static final Map<String, String> PER_USER = Map.of(
            "leapgate.origin", "principal",
            "leapgate.rule.user.match", "GET /ok",
            "leapgate.rule.user.limit", "1/1m",
            "leapgate.rule.user.scope", "per-origin");

    private final Logger logger = (Logger) LoggerFactory.getLogger(LeapgateAutoConfiguration.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void listen() {
        logged.start();
        logger.addAppender(logged);
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE); // which would reset the appenders
    }

    @AfterEach
    void stopListening() {
        logger.detachAppender(logged);
        System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
    }

    private static List<Integer> asUsers(BootApps.Running app, String... userAndPassword) throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<Integer> statuses = new ArrayList<>();
        for (String credentials : userAndPassword) {
            String basic = Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
            statuses.add(client.send(
                            HttpRequest.newBuilder(app.uri("/ok"))
                                    .header("Authorization", "Basic " + basic)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .statusCode());
        }
        return statuses;
    }

    @Test
    void withOriginPrincipal_eachUserIsCountedApart_afterSpringSecurity_andTheStartWarnsOfItsOwnAnswers()
            throws Exception {
        try (BootApps.Running app = BootApps.start(PER_USER, new ManualClock(), Security.class)) {
            assertThat(asUsers(app, "alice:alice-secret", "bob:bob-secret", "alice:alice-secret"))
                    .containsExactly(200, 200, 429);
            assertThat(app.context()
                            .getBean("leapgateFilterRegistration", FilterRegistrationBean.class)
                            .getOrder())
                    .as("just after Spring Security's chain, -100")
                    .isEqualTo(-99);
            assertThat(asUsers(app, "alice:guess-1", "alice:guess-2", "alice:guess-3", "alice:guess-4"))
                    .as("wrong passwords, answered by Spring Security: no rule of the starter's counts them")
                    .containsExactly(401, 401, 401, 401);
        }
        assertThat(logged.list)
                .filteredOn(event -> event.getLevel() == Level.WARN)
                .singleElement()
                .satisfies(event -> assertThat(event.getFormattedMessage())
                        .startsWith("Leapgate: origin = principal places the filter just after Spring Security's"
                                + " filter chain (order -99)"));
    }

    @Test
    void wrongPasswords_areLimitedByAddress_byAFilterOfTheirOwnBeforeTheChain_besideThePerUserRule() throws Exception {
        Map<String, String> orderMeant = new LinkedHashMap<>(PER_USER);
        orderMeant.put("leapgate.filter-order", "-99");
        try (BootApps.Running app =
                BootApps.start(orderMeant, new ManualClock(), Security.class, GuessesByAddress.class)) {
            assertThat(asUsers(app, "alice:guess-1", "alice:guess-2", "alice:guess-3", "alice:guess-4"))
                    .as("by address: three a minute, then 429 before the chain")
                    .containsExactly(401, 401, 401, 429);
        }
        try (BootApps.Running app =
                BootApps.start(orderMeant, new ManualClock(), Security.class, GuessesByAddress.class)) {
            assertThat(asUsers(app, "alice:alice-secret", "alice:alice-secret"))
                    .as("the starter's per-user rule, still in place")
                    .containsExactly(200, 429);
        }
        assertThat(logged.list).as("the order is given: meant").noneMatch(event -> event.getLevel() == Level.WARN);
    }
}

package dev.leapgate.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.config.ConfigParser;
import dev.leapgate.rule.RuleSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuleChecksTest {

    private static RuleSet rules(String... keyValues) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return ConfigParser.parse(map, "test").rules();
    }

    @Test
    void writtenWithPrefix_reportsRulesStartingWithTheContextPath_andSaysHowToWriteThem() {
        RuleSet rules = rules(
                "rule.login.match", "POST /app/login",
                "rule.login.limit", "5/1m",
                "rule.root.match", "/app",
                "rule.root.limit", "5/1m",
                "rule.fine.match", "/login",
                "rule.fine.limit", "5/1m",
                "rule.other.match", "/application/x",
                "rule.other.limit", "5/1m");

        assertThat(RuleChecks.writtenWithPrefix(rules, "/app", "the context path", path -> false))
                .containsExactly(
                        "rule 'login' (POST /app/login) can never match: rules match the path below the context"
                                + " path /app, so it applies to /app/app/login; write POST /login",
                        "rule 'root' (/app) can never match: rules match the path below the context path /app, so"
                                + " it applies to /app/app; write /");
        assertThat(RuleChecks.writtenWithPrefix(rules, "/app", "the context path", path -> true))
                .as("the application serves such paths: the rule may be meant")
                .isEmpty();
        assertThat(RuleChecks.writtenWithPrefix(rules, "", "the context path", path -> false))
                .as("at the root every path is possible")
                .isEmpty();
    }

    @Test
    void matchingNoRoute_reportsConcreteUrlsAndServletPrefixes_notTemplatesOrWildcards() {
        RuleSet rules = rules(
                "rule.concrete.match", "GET /users/42",
                "rule.concrete.limit", "5/1m",
                "rule.prefixed.match", "/api/users/**",
                "rule.prefixed.limit", "5/1m",
                "rule.template.match", "GET /users/{id}",
                "rule.template.limit", "5/1m",
                "rule.wide.match", "/users/**",
                "rule.wide.limit", "5/1m",
                "rule.head.match", "GET /users/me",
                "rule.head.limit", "5/1m");
        List<String> routes = List.of("GET /users/{id}", "HEAD /users/me", "POST /users");

        assertThat(RuleChecks.matchingNoRoute(rules, routes, "; hint"))
                .containsExactly(
                        "rule 'concrete' (GET /users/42) matches none of the application's 3 routes, so it can never"
                                + " apply; hint",
                        "rule 'prefixed' (/api/users/**) matches none of the application's 3 routes, so it can never"
                                + " apply; hint");
    }

    @Test
    void inFlightOverEarlyEnds_reportsInFlightRulesOverSuchRoutes_notRateLimitsOrOtherRoutes() {
        RuleSet rules = rules(
                "rule.streams.match", "/stream/**",
                "rule.streams.in-flight", "100",
                "rule.opened.match", "/stream/**",
                "rule.opened.limit", "5/1m",
                "rule.users.match", "GET /users/{id}",
                "rule.users.in-flight", "10");
        List<String> routes = List.of("GET /stream/events", "GET /stream/prices");

        assertThat(RuleChecks.inFlightOverEarlyEnds(rules, routes, "what they are"))
                .containsExactly(
                        "rule 'streams' (/stream/**, in-flight 100) matches GET /stream/events, what they are: it"
                                + " bounds the requests opening such streams at one time, not the streams open",
                        "rule 'streams' (/stream/**, in-flight 100) matches GET /stream/prices, what they are: it"
                                + " bounds the requests opening such streams at one time, not the streams open");
        assertThat(RuleChecks.inFlightOverEarlyEnds(rules, List.of(), "what they are"))
                .isEmpty();
    }
}

package dev.leapgate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Leapgate mapped for forwards (as the README asks behind a URL-rewriting filter), behind an
 * earlier filter that forwards after the chain returned: a single-page application's fallback that
 * answers every 404 with the index page. The forward is part of a request the filter already let
 * through, and is not limited a second time; the request counts once. The earlier filter and the
 * servlets are not async-supported (web.xml's default), so no request attribute marks the request.
 */
@ParameterizedClass(name = "{0} at ''{1}''")
@MethodSource("dev.leapgate.it.TestWebApp#deployments")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForwardAfterTheChainIT {

    private static final String RULES = """
            rule.all.match = /**
            rule.all.limit = 2/1m
            """;

    /** Leapgate's filter-mapping in the application's web.xml. */
    private static final String LEAPGATE_MAPPING =
            "(?s)<filter-mapping>\\s*<filter-name>leapgate</filter-name>\\s*<url-pattern>/\\*</url-pattern>\\s*"
                    + "</filter-mapping>";

    /** The fallback filter first, then Leapgate's mapping for requests and forwards. */
    private static final String WITH_FALLBACK = """
              <filter>
                <filter-name>fallback</filter-name>
                <filter-class>dev.leapgate.it.app.NotFoundFallbackFilter</filter-class>
                <init-param><param-name>fallback</param-name><param-value>/hello</param-value></init-param>
              </filter>
              <filter-mapping>
                <filter-name>fallback</filter-name>
                <url-pattern>/*</url-pattern>
              </filter-mapping>
              <filter-mapping>
                <filter-name>leapgate</filter-name>
                <url-pattern>/*</url-pattern>
                <dispatcher>REQUEST</dispatcher>
                <dispatcher>FORWARD</dispatcher>
              </filter-mapping>""";

    private TestWebApp web;

    @Parameter(0)
    Container container;

    @Parameter(1)
    String contextPath;

    @BeforeParameterizedClassInvocation(injectArguments = false)
    void start() throws Exception {
        web = TestWebApp.withRules(RULES)
                .on(container, contextPath)
                .editDescriptor(xml -> {
                    String edited = xml.replaceFirst(LEAPGATE_MAPPING, WITH_FALLBACK.strip());
                    if (edited.equals(xml)) {
                        throw new IllegalStateException("web.xml no longer maps the filter as written here");
                    }
                    return edited;
                })
                .start();
    }

    @AfterParameterizedClassInvocation
    void stop() throws Exception {
        web.close();
    }

    @Test
    void aForwardAfterTheChain_isPartOfTheRequest_notLimitedAgain() throws Exception {
        for (int i = 1; i <= 2; i++) {
            HttpResponse<String> r = web.get("/no/such/page");

            assertThat(r.statusCode())
                    .as("request %d, answered by the fallback page", i)
                    .isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello\n");
        }
        assertThat(web.stats("/**").admitted()).as("two requests").isEqualTo(2);
        assertThat(web.stats("/**").rejected()).isZero();
        assertThat(web.get("/no/such/page").statusCode())
                .as("the third request is over the limit")
                .isEqualTo(429);
    }
}

package dev.leapgate.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leapgate.http.PathPattern;
import dev.leapgate.http.RequestPath;
import org.junit.jupiter.api.Test;

class RouteTemplateTest {

    @Test
    void join_putsOneSlashBetweenTemplates_whateverTheirSlashes() {
        assertThat(RouteTemplate.join("users", "{id}")).isEqualTo("/users/{id}");
        assertThat(RouteTemplate.join("/users/", "/{id}/")).isEqualTo("/users/{id}");
        assertThat(RouteTemplate.join("//a//b", null, "")).isEqualTo("/a/b");
        assertThat(RouteTemplate.join(null, null)).isEqualTo("/");
    }

    @Test
    void regularExpressions_areDropped_keepingTheVariableName() {
        assertThat(RouteTemplate.join("items", "{id: \\d+}")).isEqualTo("/items/{id}");
        assertThat(RouteTemplate.join("{code : [A-Z]{2,3}}-{n:[0-9]{1}}")).isEqualTo("/{code}-{n}");
        assertThat(RouteTemplate.join("files/{path: .+/.+}")).isEqualTo("/files/{path}");
        assertThat(RouteTemplate.join("{a: \\{x\\}}/b")).isEqualTo("/{a}/b");
    }

    @Test
    void configPatternWithAVariable_matchesATemplateVariable() {
        PathPattern configured = PathPattern.parse("GET /users/{id}");

        assertThat(configured.matches("GET", RequestPath.normalize("/users/{id}")))
                .isTrue();
        assertThat(PathPattern.parse("GET /users/*").matches("GET", RequestPath.normalize("/users/{id}")))
                .isTrue();
        assertThat(PathPattern.parse("GET /users/42").matches("GET", RequestPath.normalize("/users/{id}")))
                .isFalse();
    }
}

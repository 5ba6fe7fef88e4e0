package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SelectorTest {

  private static Breadcrumb crumb(String schema, String context, String... tags) {
    Instant t = Instant.parse("2025-01-01T00:00:00Z");
    return new Breadcrumb(
        "id", "t", null, null, RcrtJson.parse(context), List.of(tags), schema, null, null, null, 1,
        "", null, null, null, t, t, null, null, 0);
  }

  @Test
  void readsRcrtSelectorJson() {
    Selector s =
        Selector.fromJson(
            RcrtJson.parse(
                """
                {"any_tags":["a","b"],"all_tags":["c"],"schema_name":"s.v1",
                 "context_match":[{"path":"$.session_id","op":"eq","value":"42"}]}
                """));
    assertThat(s.anyTags()).containsExactly("a", "b");
    assertThat(s.allTags()).containsExactly("c");
    assertThat(s.schemaName()).isEqualTo("s.v1");
    assertThat(s.contextMatch()).containsExactly(ContextMatch.eq("$.session_id", "42"));
    assertThat(s.matches(crumb("s.v1", "{\"session_id\":\"42\"}", "a", "c"))).isTrue();
    assertThat(s.matches(crumb("s.v1", "{\"session_id\":\"43\"}", "a", "c"))).isFalse();
    assertThat(s.matches(crumb("s.v1", "{\"session_id\":\"42\"}", "c"))).isFalse();
  }

  @Test
  void anUnknownOperatorFailsWhenTheSelectorIsBuilt() {
    assertThatThrownBy(
            () ->
                Selector.fromJson(
                    RcrtJson.parse("{\"context_match\":[{\"path\":\"$.a\",\"op\":\"like\",\"value\":1}]}")))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("context_match op: unknown value 'like'")
        .hasMessageContaining("contains_any");
  }

  @Test
  void pathsWhoseCostIsUnboundedAreRefusedWhenTheSelectorIsBuilt() {
    assertThatThrownBy(() -> ContextMatch.eq("$..*..*..*..*", 1))
        .isInstanceOf(ValidationException.class)
        .hasMessage("invalid JSONPath '$..*..*..*..*': at most one deep scan (..) is allowed per path; each further one multiplies the matches");
    assertThatThrownBy(() -> ContextMatch.eq("$..[?(@.s =~ /(.*a){12}c/)]", 1))
        .isInstanceOf(ValidationException.class)
        .hasMessageStartingWith("invalid JSONPath '$..[?(@.s =~ /(.*a){12}c/)]': regular-expression filters (=~)");
    assertThat(ContextMatch.eq("$..name", "calculator").path()).isEqualTo("$..name");
    assertThat(ContextMatch.eq("$.a['x..y']", 1).path()).isEqualTo("$.a['x..y']");
  }

  @Test
  void aMalformedPathFailsWhenTheSelectorIsBuilt() {
    assertThatThrownBy(() -> ContextMatch.eq("$.a[", 1))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("invalid JSONPath '$.a['");
  }

  @Test
  void containsAnyNeedsAnArrayAndExistsABoolean() {
    assertThatThrownBy(() -> ContextMatch.of("$.a", MatchOp.CONTAINS_ANY, "x"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("value must be an array");
    assertThatThrownBy(() -> ContextMatch.of("$.a", MatchOp.EXISTS, "yes"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("true or false");
  }

  @Test
  void aSelectorThatIsNotAnObjectIsRejected() {
    assertThatThrownBy(() -> Selector.fromJson(RcrtJson.parse("[]")))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("expected a JSON object");
  }

  @Test
  void aPathWithoutDollarIsReadFromTheContextRoot() {
    Selector s = Selector.all().withMatch(ContextMatch.eq("user.name", "ada"));
    assertThat(s.matches(crumb("s", "{\"user\":{\"name\":\"ada\"}}"))).isTrue();
  }

  @Test
  void aPathIntoAMissingOrScalarNodeDoesNotMatchAndDoesNotThrow() {
    Selector s = Selector.all().withMatch(ContextMatch.eq("$.a.b.c", 1));
    assertThat(s.matches(crumb("s", "{\"a\":5}"))).isFalse();
    assertThat(s.matches(crumb("s", "{}"))).isFalse();
  }

  @Test
  void anIndefinitePathMatchesWhenAnyValueDoes() {
    Selector s = Selector.all().withMatch(ContextMatch.eq("$.items[*].id", "b"));
    assertThat(s.matches(crumb("s", "{\"items\":[{\"id\":\"a\"},{\"id\":\"b\"}]}"))).isTrue();
    assertThat(s.matches(crumb("s", "{\"items\":[{\"id\":\"a\"}]}"))).isFalse();
  }

  @Test
  void writesRcrtSelectorJsonWithoutEmptyFields() {
    String json = RcrtJson.write(Selector.schema("s.v1").withAllTags("x"));
    assertThat(json).isEqualTo("{\"all_tags\":[\"x\"],\"schema_name\":\"s.v1\"}");
  }
}

package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class BreadcrumbJsonTest {

  private static final String SERVER_JSON =
      """
      {"id":"b1","title":"T","description":"D","semantic_version":"1.0.0",
       "context":{"a":1},"tags":["x"],"schema_name":"s.v1","llm_hints":{"exclude":["a"]},
       "visibility":"Public","sensitivity":"Low","version":3,"checksum":"sha256:ab",
       "ttl":null,"created_at":"2025-11-12T10:00:00Z","updated_at":"2025-11-12T11:00:00Z",
       "created_by":"agent-1","updated_by":null,"size_bytes":7,"some_future_field":{"x":1}}
      """;

  @Test
  void readsTheServersWireFormatAndIgnoresUnknownFields() throws Exception {
    Breadcrumb b = RcrtJson.parseAs(SERVER_JSON);
    assertThat(b.id()).isEqualTo("b1");
    assertThat(b.semanticVersion()).isEqualTo("1.0.0");
    assertThat(b.schemaName()).isEqualTo("s.v1");
    assertThat(b.visibility()).isEqualTo(Visibility.PUBLIC);
    assertThat(b.sensitivity()).isEqualTo(Sensitivity.LOW);
    assertThat(b.version()).isEqualTo(3);
    assertThat(b.llmHints().get("exclude").get(0).asText()).isEqualTo("a");
    assertThat(b.createdBy()).isEqualTo("agent-1");
    assertThat(b.updatedAt()).isAfter(b.createdAt());
  }

  @Test
  void writesSnakeCaseFieldNamesAndCapitalisedEnums() {
    Breadcrumb b = RcrtJson.parseAs(SERVER_JSON);
    JsonNode written = RcrtJson.toTree(b);
    assertThat(written.has("schema_name")).isTrue();
    assertThat(written.has("semantic_version")).isTrue();
    assertThat(written.has("size_bytes")).isTrue();
    assertThat(written.has("schemaName")).isFalse();
    assertThat(written.get("visibility").asText()).isEqualTo("Public");
    assertThat(written.get("created_at").asText()).isEqualTo("2025-11-12T10:00:00Z");
    assertThat(written.has("ttl")).as("null fields are omitted").isFalse();
  }

  @Test
  void readsRcrtsFullViewWithExplicitNullsOwnerIdAndAUuidWriter() {
    Breadcrumb b = RcrtJson.parseAs("""
        {"id":"7d3f5e0a-1c2b-4d5e-8f90-123456789abc","owner_id":"00000000-0000-0000-0000-000000000001",
         "title":"T","description":null,"semantic_version":null,"context":{"a":1},"tags":null,"schema_name":null,
         "llm_hints":null,"visibility":"Team","sensitivity":"Low","version":1,"checksum":null,"ttl":null,
         "ttl_type":null,"ttl_config":null,"read_count":0,"created_at":"2025-11-12T10:00:00.123456Z",
         "updated_at":null,"created_by":"00000000-0000-0000-0000-0000000000aa","updated_by":null,"size_bytes":7}""");
    assertThat(b.tags()).isEmpty();
    assertThat(b.schemaName()).isNull();
    assertThat(b.visibility()).isEqualTo(Visibility.TEAM);
    assertThat(b.checksum()).isEmpty();
    assertThat(b.updatedAt()).isEqualTo(b.createdAt());
    assertThat(b.createdBy()).isEqualTo("00000000-0000-0000-0000-0000000000aa");
  }

  @Test
  void theDefaultVisibilityIsRcrtsTeam() {
    Breadcrumb b = RcrtJson.parseAs("{\"id\":\"x\",\"title\":\"T\",\"created_at\":\"2025-11-12T10:00:00Z\"}");
    assertThat(b.visibility()).isEqualTo(Visibility.TEAM);
  }

  @Test
  void enumsReadLowercaseAndCapitalisedSpellings() {
    assertThat(Visibility.fromWire("team")).isEqualTo(Visibility.TEAM);
    assertThat(Visibility.fromWire("Private")).isEqualTo(Visibility.PRIVATE);
    assertThat(Sensitivity.fromWire("pii")).isEqualTo(Sensitivity.PII);
    assertThat(Sensitivity.fromWire("Secret")).isEqualTo(Sensitivity.SECRET);
    assertThat(TtlType.fromWire("Hybrid")).isEqualTo(TtlType.HYBRID);
  }

  @Test
  void anUnknownEnumValueNamesTheFieldAndTheAcceptedValues() {
    assertThatThrownBy(() -> Visibility.fromWire("secretive"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("visibility: unknown value 'secretive'; use one of public, team, private");
  }

  @Test
  void anIdWithAControlCharacterOrOfAMegabyteIsRefused() {
    // whoever gives the id chooses what every log line, URI and error naming the record carries
    for (String id : new String[] {"note\n2026-11-27 INFO payment approved", "tab\there", "x".repeat(513)}) {
      assertThatThrownBy(() -> BreadcrumbCreate.builder("s.v1", "t").id(id).build()).as(id.substring(0, 8))
          .isInstanceOf(ValidationException.class).hasMessageContaining("no control characters");
      assertThatThrownBy(() -> RcrtJson.read(RcrtJson.object().put("title", "t").put("schema_name", "s.v1").put("id", id), BreadcrumbCreate.class))
          .as("on the wire too").isInstanceOf(ValidationException.class).hasMessageContaining("no control characters");
    }
    assertThat(BreadcrumbCreate.builder("s.v1", "t").id("mcp-session-" + "a".repeat(32)).build().id()).startsWith("mcp-session-");
    assertThat(BreadcrumbCreate.builder("s.v1", "t").id("x".repeat(512)).build().id()).hasSize(512);
  }

  @Test
  void aCreatePayloadNeedsATitleAndAnObjectContext() {
    assertThatThrownBy(() -> BreadcrumbCreate.builder("s.v1", " ").build())
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("title is required");
    assertThatThrownBy(
            () -> BreadcrumbCreate.builder("s.v1", "t").context(RcrtJson.parse("[1]")).build())
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("context: expected object, found ARRAY");
  }

  @Test
  void parseReportsLineAndColumnOfMalformedJson() {
    assertThatThrownBy(() -> RcrtJson.parse("{\n  \"a\": }"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("line 2, column 8");
  }

  @Test
  void aRepeatedKeyIsAnErrorWithItsPointerNotLastWins() {
    assertThatThrownBy(() -> RcrtJson.parse("{\"tool\":\"echo\",\"input\":{\"to\":\"alice\",\"to\":\"mallory\"}}"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("not valid JSON: Duplicate field 'to' at line 1, column 42 (/input/to)");
  }

  @Test
  void aNumberBeyondADoubleIsAnErrorNotInfinityOrAString() {
    assertThatThrownBy(() -> RcrtJson.parse("{\"amounts\":[1,1e400]}"))
        .isInstanceOf(ValidationException.class)
        .hasMessage("not valid JSON: the number at /amounts/1 is outside the range of a double; send it as a string if it must be that large");
    assertThat(RcrtJson.parse("{\"n\":1.7976931348623157e308}").get("n").isNumber()).isTrue();
  }

  @Test
  void anIntegerBeyondADoubleIsRefusedToo() {
    String huge = "9".repeat(900);
    assertThatThrownBy(() -> RcrtJson.parse("{\"n\":" + huge + "}"))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("the number at /n is outside the range of a double");
    LoadReport<BreadcrumbCreate> loaded = BreadcrumbFiles.parse("huge.json",
        new java.io.ByteArrayInputStream(("{\"schema_name\":\"note.v1\",\"title\":\"t\",\"context\":{\"n\":" + huge + "}}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThat(loaded.items()).isEmpty();
    assertThat(loaded.problems()).singleElement().satisfies(p -> assertThat(p.toString()).contains("outside the range of a double"));
    assertThat(RcrtJson.parse("{\"n\":" + "9".repeat(300) + "}").get("n").isNumber()).as("within a double's range").isTrue();
  }
}

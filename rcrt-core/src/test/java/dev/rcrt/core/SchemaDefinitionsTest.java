package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SchemaDefinitionsTest {
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().validateSchemas(true).build();

  private void define(String context) {
    store.create(BreadcrumbCreate.builder(ContextView.SCHEMA_DEFINITION, "note schema").tags("defines:note.v1")
        .context(RcrtJson.parse(context)).build());
  }

  private Breadcrumb note(String context) {
    return store.create(BreadcrumbCreate.builder("note.v1", "n").context(RcrtJson.parse(context)).build());
  }

  @Test
  void fieldDefinitionsRequireFieldsAndCheckTypes() {
    define("{\"field_definitions\":{\"text\":{\"type\":\"string\",\"required\":true,\"description\":\"the note\"},\"priority\":{\"type\":\"int\"}}}");
    assertThat(note("{\"text\":\"milk\",\"priority\":2}").version()).isEqualTo(1);
    assertThatThrownBy(() -> note("{\"priority\":\"high\"}"))
        .isInstanceOfSatisfying(ValidationException.class, e -> {
          assertThat(e.getMessage()).startsWith("breadcrumb 'n' (note.v1) does not match its schema definition: ");
          assertThat(e.violations()).containsExactlyInAnyOrder(": required key [text] not found", "/priority: expected integer, found string");
        });
  }

  @Test
  void anOptionalJsonSchemaMustHoldToo() {
    define("{\"field_definitions\":{\"text\":{\"type\":\"string\"}},\"schema\":{\"properties\":{\"text\":{\"maxLength\":3}}}}");
    assertThatThrownBy(() -> note("{\"text\":\"too long\"}")).isInstanceOf(ValidationException.class).hasMessageContaining("/text");
  }

  @Test
  void updatesAreValidatedAndSchemasWithoutADefinitionAreNot() {
    define("{\"field_definitions\":{\"text\":{\"type\":\"string\",\"required\":true}}}");
    Breadcrumb ok = note("{\"text\":\"a\"}");
    assertThatThrownBy(() -> store.update(ok.id(), 1, BreadcrumbUpdate.ofContext(RcrtJson.parse("{\"text\":5}"))))
        .isInstanceOf(ValidationException.class).hasMessageContaining("/text: expected string, found integer");
    assertThat(store.get(ok.id()).orElseThrow().version()).isEqualTo(1);
    assertThat(store.create(BreadcrumbCreate.builder("other.v1", "free").context(RcrtJson.parse("{\"anything\":true}")).build())).isNotNull();
  }

  @Test
  void withValidationOffNothingIsChecked() {
    InMemoryBreadcrumbStore lax = new InMemoryBreadcrumbStore();
    lax.create(BreadcrumbCreate.builder(ContextView.SCHEMA_DEFINITION, "s").tags("defines:note.v1")
        .context(RcrtJson.parse("{\"field_definitions\":{\"text\":{\"type\":\"string\",\"required\":true}}}")).build());
    assertThat(lax.create(BreadcrumbCreate.builder("note.v1", "n").build()).version()).isEqualTo(1);
    assertThat(SchemaDefinitions.of(lax).violations("note.v1", RcrtJson.object())).containsExactly(": required key [text] not found");
  }
}

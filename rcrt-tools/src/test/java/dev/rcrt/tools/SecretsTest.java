package dev.rcrt.tools;

import dev.rcrt.tools.testing.ToolHarness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SecretsTest {
  private static final String KEY = "sk-live-0123456789";

  @Test
  void theEnvironmentResolverReadsTheNameAsWrittenThenItsEnvironmentForm() {
    SecretResolver env = SecretResolver.environment(Map.of("exact-name", "a", "MY_TOOL_API_KEY", "b"));
    assertThat(env.resolve("exact-name")).contains("a");
    assertThat(env.resolve("my-tool-api-key")).contains("b");
    assertThat(env.resolve("unknown")).isEmpty();
  }

  @Test
  void toolConfigSecretReferencesAreResolvedAtCallTimeAndNeverRecorded() {
    AtomicReference<ToolContext> seen = new AtomicReference<>();
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(Map.of("OPENROUTER_API_KEY", KEY)))
        .handler("leaky", (input, ctx) -> {
          seen.set(ctx);
          return RcrtJson.object().put("echoed", "key=" + ctx.config().get("apiKey").asText());
        }))) {
      h.define("tool.definition.v1", "{\"name\":\"leaky\"}");
      h.store.create(BreadcrumbCreate.builder("tool.config.v1", "cfg").id("openrouter")
          .context(RcrtJson.parse("{\"tool\":\"leaky\",\"config\":{\"apiKey\":\"secret:openrouter-api-key\",\"defaultModel\":\"m\",\"nested\":[\"secret:openrouter-api-key\"]}}")).build());

      ToolResponse r = h.call("leaky", "{}");

      assertThat(seen.get().config().get("apiKey").asText()).isEqualTo(KEY);
      assertThat(seen.get().config().at("/nested/0").asText()).isEqualTo(KEY);
      assertThat(seen.get().config().get("defaultModel").asText()).isEqualTo("m");
      assertThat(seen.get().toString()).doesNotContain(KEY);
      assertThat(r.output().get("echoed").asText()).isEqualTo("key=[secret]");
      assertThat(h.everything()).doesNotContain(KEY).contains("secret:openrouter-api-key");
    }
  }

  @Test
  void aFailureMessageThatContainsASecretIsScrubbed() {
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(Map.of("TOKEN", KEY)))
        .handler("blabber", (input, ctx) -> { throw new IllegalStateException("auth failed for " + ctx.secrets().get("TOKEN")); }))) {
      h.define("tool.definition.v1", "{\"name\":\"blabber\",\"required_secrets\":[\"TOKEN\"]}");
      ToolResponse r = h.call("blabber", "{}");
      assertThat(r.error()).isEqualTo("tool 'blabber' failed: IllegalStateException: auth failed for [secret]");
      assertThat(h.everything()).doesNotContain(KEY);
    }
  }

  @Test
  void examplesThatBreakTheirToolsSchemasAreFound() {
    JsonNode in = RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}");
    JsonNode out = RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"string\"}}}");
    try (ToolHarness h = new ToolHarness()) {
      var b = h.define("tool.definition.v1", """
          {"name":"ex","inputSchema":%s,"outputSchema":%s,
           "examples":[{"input":{"n":1},"output":{"r":"ok"}},{"input":{"n":"one"},"output":{"r":2}}]}
          """.formatted(in, out));
      ToolDefinition def = ToolDefinition.fromBreadcrumb(b);
      assertThat(def.problems())
          .containsExactly("tool 'ex' example 2 input /n: expected number, found string", "tool 'ex' example 2 output /r: expected string, found integer");
    }
  }

  @Test
  void aSecretReturnedAsANumberIsScrubbed() {
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(java.util.Map.of("PIN", "48213377")))
        .handler("pin", (in, ctx) -> dev.rcrt.core.RcrtJson.object().put("pin", Long.parseLong(ctx.secrets().get("PIN")))))) {
      h.define("tool.definition.v1", "{\"name\":\"pin\",\"required_secrets\":[\"PIN\"]}");
      ToolResponse r = h.call("pin", "{}");
      assertThat(r.output().get("pin").asText()).isEqualTo("[secret]");
      assertThat(h.everything()).doesNotContain("48213377");
    }
  }

  @Test
  void aKnownSecretAModelPutsIntoToolArgumentsIsNotRecordedButTheToolStillGetsIt() {
    java.util.List<String> seen = new java.util.ArrayList<>();
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(java.util.Map.of("TOKEN", "tok-7f3a9c21e5")))
        .handler("uses-token", (in, ctx) -> dev.rcrt.core.RcrtJson.object().put("ok", true))
        .handler("echo-arg", (in, ctx) -> { seen.add(in.path("note").asText()); return dev.rcrt.core.RcrtJson.object(); }))) {
      h.define("tool.definition.v1", "{\"name\":\"uses-token\",\"required_secrets\":[\"TOKEN\"]}");
      h.define("tool.definition.v1", "{\"name\":\"echo-arg\"}");
      h.call("uses-token", "{}");
      h.call("echo-arg", "{\"note\":\"the key is tok-7f3a9c21e5\"}");
      assertThat(seen).containsExactly("the key is tok-7f3a9c21e5");
      assertThat(h.everything()).doesNotContain("tok-7f3a9c21e5").contains("the key is [secret]");
    }
  }

  @Test
  void whatAToolWritesThroughItsStoreCarriesNoSecret() {
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(java.util.Map.of("TOKEN", "tok-91be77aa02")))
        .handler("writer", (in, ctx) -> {
          ctx.store().create(dev.rcrt.core.BreadcrumbCreate.builder("note.v1", "key " + ctx.secrets().get("TOKEN"))
              .context(dev.rcrt.core.RcrtJson.object().put("token", ctx.secrets().get("TOKEN"))).build());
          return dev.rcrt.core.RcrtJson.object();
        }))) {
      h.define("tool.definition.v1", "{\"name\":\"writer\",\"required_secrets\":[\"TOKEN\"]}");
      assertThat(h.call("writer", "{}").success()).isTrue();
      assertThat(h.everything()).doesNotContain("tok-91be77aa02").contains("key [secret]");
    }
  }

  @Test
  void textStillBeingWrittenNeverShowsPartOfASecretSplitAcrossFragments() {
    try (ToolHarness h = new ToolHarness()) {
      h.runner.addSecretValue(KEY);
      // the model's text arrives in fragments; the key is split over three of them
      String[] fragments = {"the key is sk-", "live-01", "23456789, and sk-", "lively it goes on"};
      String[] shown = {"the key is ", "", "[secret], and ", "sk-lively it goes on"};
      StreamScrubber stream = h.runner.streamScrubber();
      for (int i = 0; i < fragments.length; i++) {
        assertThat(stream.add(fragments[i])).as("shown after fragment %d", i).isEqualTo(shown[i]);
      }
      assertThat(stream.end()).as("nothing held back").isEmpty();
      StreamScrubber cut = h.runner.streamScrubber();
      assertThat(cut.add("the key is sk-live-01")).isEqualTo("the key is ");
      assertThat(cut.end()).as("a text that ends shows its ending").isEqualTo("sk-live-01");
    }
  }
}

package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A host's own implementation type through the public {@link ToolRuntime} SPI, inside the same chain as the built-in types. */
class ToolRuntimeTest {
  /** Upper-cases {@code text}; refuses records without {@code implementation.suffix}. */
  static final class Upper implements ToolRuntime {
    final AtomicBoolean closed = new AtomicBoolean();

    @Override
    public String type() {
      return "upper";
    }

    @Override
    public List<String> problems(ToolDefinition definition) {
      return definition.implementation().spec().has("suffix") ? List.of() : List.of("implementation.suffix: required");
    }

    @Override
    public Loaded load(ToolDefinition definition, Services services) {
      String suffix = definition.implementation().spec().get("suffix").asText();
      return (input, call) -> RcrtJson.object().put("text", input.get("text").asText().toUpperCase() + suffix + call.secret("SUFFIX_KEY").length());
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }

  @Test
  void aRuntimeRunsItsTypeThroughTheChainAndIsClosedWithTheRunner() {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    Upper upper = new Upper();
    ToolRunner runner = ToolRunner.builder(store).runtime(upper)
        .secretResolver(SecretResolver.environment(java.util.Map.of("SUFFIX_KEY", "abcdefgh"))).build();
    store.create(BreadcrumbCreate.builder("tool.v1", "shout").context(RcrtJson.parse("""
        {"name":"shout","implementation":{"type":"upper","suffix":"!"},"required_secrets":["SUFFIX_KEY"],
         "definition":{"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}}""")).build());

    ToolResponse ok = runner.call(ToolRequest.of("shout", RcrtJson.parse("{\"text\":\"hi\"}"), "test"));
    assertThat(ok.error()).isNull();
    assertThat(ok.output().get("text").asText()).isEqualTo("HI!8");
    ToolResponse invalid = runner.call(ToolRequest.of("shout", RcrtJson.parse("{\"text\":5}"), "test"));
    assertThat(invalid.errorCode()).isEqualTo("tool_input_invalid");

    store.create(BreadcrumbCreate.builder("tool.v1", "broken").context(RcrtJson.parse("{\"name\":\"broken\",\"implementation\":{\"type\":\"upper\"}}")).build());
    assertThat(runner.problems(runner.discovery().find("broken").orElseThrow())).contains("implementation.suffix: required");
    runner.close();
    assertThat(upper.closed).isTrue();
  }

  @Test
  void startingAProgramIsACapabilityTheHostGrants() {
    assertThat(ToolTrustPolicy.defaults().allows(new Capability.StartProcess("npx"))).isFalse();
    ToolTrustPolicy policy = ToolTrustPolicy.builder().allowCommands("npx", "/opt/mcp/*").build();
    assertThat(policy.allows(new Capability.StartProcess("npx"))).isTrue();
    assertThat(policy.allows(new Capability.StartProcess("/opt/mcp/search"))).isTrue();
    assertThat(policy.allows(new Capability.StartProcess("/bin/sh"))).isFalse();
  }
}

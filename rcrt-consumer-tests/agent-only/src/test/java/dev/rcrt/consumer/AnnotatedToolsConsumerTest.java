package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.Tool;
import dev.rcrt.tools.ToolParam;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A project that depends on {@code rcrt-agent} alone writes its tools as annotated methods: one
 * takes a record, one returns a list of records; an agent answers through both.
 */
class AnnotatedToolsConsumerTest {
  public record Trip(String from, String to, int passengers) {}

  public record Train(String departs, String arrives, double price) {}

  public static final class Rail {
    @Tool(description = "Price a trip for its passengers")
    public double price(@ToolParam(name = "trip", description = "where and for how many") Trip trip) {
      return 42.5 * trip.passengers();
    }

    @Tool(description = "List the trains between two stations")
    public List<Train> trains(@ToolParam(name = "from") String from, @ToolParam(name = "to") String to) {
      return List.of(new Train("08:00", "10:30", 42.5), new Train("12:00", "14:30", 39.0));
    }
  }

  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();

  @Test
  void anAgentAnswersThroughAnnotatedMethodsAndTheRecordsCarryTheGeneratedSchemas() {
    ScriptedLlmClient llm = ScriptedLlmClient.replying(
        ChatResponse.toolCalls(
            new ToolCall("c1", "trains", "{\"from\":\"Oslo\",\"to\":\"Bergen\"}"),
            new ToolCall("c2", "price", "{\"trip\":{\"from\":\"Oslo\",\"to\":\"Bergen\",\"passengers\":2}}")),
        ChatResponse.text("Two trains; 85 for the two of you"));
    try (ToolRunner runner = ToolRunner.builder(store).tools(new Rail()).build();
        AgentExecutor executor = AgentExecutor.builder(llm, runner)
            .agent(AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()))).build()) {
      Breadcrumb question = store.create(new UserMessage("s1", "Trains from Oslo to Bergen for two?").toBreadcrumb());
      assertThat(executor.answer(question).contextText("message")).isEqualTo("Two trains; 85 for the two of you");

      JsonNode price = store.search(Selector.schema("tool.v1"), 10, 0).stream().filter(b -> b.title().equals("price")).findFirst().orElseThrow().context();
      assertThat(price.at("/input_schema/properties/trip/description").asText()).isEqualTo("where and for how many");
      assertThat(RcrtJson.write(price.get("input_schema"))).contains("\"passengers\"", "\"integer\"");
      assertThat(price.at("/output_schema/type").asText()).isEqualTo("number");

      ToolResponse wrong = runner.call(ToolRequest.of("price", RcrtJson.parse("{\"trip\":{\"from\":\"Oslo\",\"to\":\"Bergen\",\"passengers\":\"two\"}}"), "consumer"));
      assertThat(wrong.errorCode()).isEqualTo("tool_input_invalid");
      assertThat(wrong.error()).contains("/trip/passengers");
    }
    List<ToolResponse> responses = store.search(Selector.schema(ToolResponse.SCHEMA), 10, 0).stream().map(ToolResponse::fromBreadcrumb).toList();
    assertThat(responses).anySatisfy(r -> assertThat(RcrtJson.write(r.output())).isEqualTo("85.0"));
    assertThat(responses).anySatisfy(r -> assertThat(RcrtJson.write(r.output())).contains("\"departs\":\"08:00\""));
  }
}

package dev.rcrt.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolRunner;

/**
 * A custom tool: Java code behind a {@link ToolHandler}, published as a {@code tool.definition.v1}
 * breadcrumb so that agents discover it, and called by the agent through the runner.
 */
public final class CustomToolExample {
  private CustomToolExample() {}

  // docs:begin handler
  /** Counts the words of a text: {@code {text}} → {@code {words}}. */
  static final class WordCount implements ToolHandler {
    @Override
    public JsonNode execute(JsonNode input, ToolContext context) {
      String text = input.get("text").asText().strip();
      int words = text.isEmpty() ? 0 : text.split("\\s+").length;
      return RcrtJson.object().put("words", words);
    }
  }

  static Breadcrumb publish(BreadcrumbStore store) {
    return store.create(
        BreadcrumbCreate.builder("tool.definition.v1", "Word count")
            .id("tool-def-word-count")
            .tags("tool:definition", "workspace:tools")
            .context(RcrtJson.parse("""
                {"name": "word-count", "description": "Count the words in a text",
                 "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                 "outputSchema": {"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]}}
                """))
            .build());
  }
  // docs:end handler

  /** Publishes the tool, lets the agent call it, and returns the agent's answer. */
  public static String run(LlmClient llm) {
    BreadcrumbStore store = new InMemoryBreadcrumbStore();
    publish(store);
    AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
    try (ToolRunner runner = ToolRunner.builder(store).handler("word-count", new WordCount()).build()) {
      AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build();
      Breadcrumb question = store.create(new UserMessage("s", "How many words are in 'right context right time'?").toBreadcrumb());
      return AgentResponse.fromBreadcrumb(executor.answer(question)).message();
    }
  }

  public static void main(String[] args) {
    LlmClient scripted =
        ScriptedLlmClient.answering(
            request -> {
              var last = request.messages().get(request.messages().size() - 1);
              if ("tool".equals(last.role())) {
                return ChatResponse.text("It has " + RcrtJson.parse(String.valueOf(last.content())).get("words") + " words.");
              }
              return ChatResponse.toolCalls(new ToolCall("call_1", "word-count", "{\"text\":\"right context right time\"}"));
            });
    System.out.println(run(scripted));
  }
}

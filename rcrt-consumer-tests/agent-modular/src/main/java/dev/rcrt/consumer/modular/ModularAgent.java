package dev.rcrt.consumer.modular;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;

/**
 * Runs one agent turn on the module path: the model (a scripted client written here) calls the
 * builtin calculator, then answers with its result; then a JavaScript tool. Prints the answer,
 * which module the SDK was loaded from, and the JavaScript tool's output.
 */
public final class ModularAgent {
  private ModularAgent() {}

  public static void main(String[] args) {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    BuiltinTools.seed(store);
    LlmClient model = new LlmClient() {
      @Override
      public ChatResponse chat(ChatRequest request) {
        ChatMessage last = request.messages().get(request.messages().size() - 1);
        if (!"tool".equals(last.role())) {
          return new ChatResponse(ChatMessage.assistant(null, List.of(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"))),
              "tool_calls", null, request.model());
        }
        return new ChatResponse(ChatMessage.assistant("17 * 23 = " + last.content(), List.of()), "stop", null, request.model());
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).build();
        AgentExecutor executor = AgentExecutor.builder(model, runner)
            .agent(AgentDefinition.builder("modular-bot").model("scripted").build()).build()) {
      System.out.println("answer: " + executor.ask("s1", "What is 17 * 23?").message());
      System.out.println("sdk module: " + ToolRunner.class.getModule().getName() + ", named: " + ToolRunner.class.getModule().isNamed());
      store.create(dev.rcrt.core.BreadcrumbCreate.builder("tool.code.v1", "square").context(dev.rcrt.core.RcrtJson.parse("""
          {"name":"square","code":{"language":"javascript","source":"export function execute(i) { return {square: i.n * i.n}; }"},
           "input_schema":{"type":"object"}}""")).build());
      dev.rcrt.tools.ToolResponse js = runner.call(dev.rcrt.tools.ToolRequest.of("square", dev.rcrt.core.RcrtJson.parse("{\"n\":12}"), "modular"));
      System.out.println("javascript: " + (js.success() ? dev.rcrt.core.RcrtJson.write(js.requireOutput()) : js.error()));
    }
  }
}

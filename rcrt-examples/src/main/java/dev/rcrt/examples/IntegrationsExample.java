package dev.rcrt.examples;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.Selector;
import dev.rcrt.langchain4j.BreadcrumbToolProvider;
import dev.rcrt.langchain4j.LangChain4jLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.opentelemetry.RcrtTelemetry;
import dev.rcrt.serverstore.RcrtServerStore;
import dev.rcrt.tools.ToolRunner;
import io.opentelemetry.api.OpenTelemetry;
import java.util.List;

/** The SDK beside other libraries: LangChain4j both ways, OpenTelemetry, a running RCRT server as the store. */
public final class IntegrationsExample {
  private IntegrationsExample() {}

  /** The agent on LangChain4j models. */
  static AgentExecutor onLangChain4j(ToolRunner runner, AgentDefinition agent) {
    // docs:begin lc4j-models
    ChatModel claude = AnthropicChatModel.builder().apiKey(System.getenv("ANTHROPIC_API_KEY")).modelName("claude-sonnet-4-5").build();
    LlmClient llm = LangChain4jLlmClient.of(claude).withDefaultModel("claude-sonnet-4-5");
    AgentExecutor executor = AgentExecutor.builder(llm, runner).agent(agent).build(); // any ChatModel: OllamaChatModel, GoogleAiGeminiChatModel, ...
    // docs:end lc4j-models
    return executor;
  }

  // docs:begin lc4j-aiservices
  interface Assistant { String chat(String message); }

  static String askThroughAiServices(ChatModel claude, ToolRunner runner) {
    Assistant assistant = AiServices.builder(Assistant.class)
        .chatModel(claude)
        .toolProvider(new BreadcrumbToolProvider(runner, "support-bot"))
        .build();
    return assistant.chat("What is 17 * 23?"); // calls the calculator breadcrumb tool
  }
  // docs:end lc4j-aiservices

  /** Traces and metrics of the agent, its model calls and its tools. */
  static AgentExecutor traced(OpenTelemetry openTelemetry, BreadcrumbStore store, LlmClient llm, AgentDefinition agent) {
    // docs:begin telemetry
    RcrtTelemetry telemetry = RcrtTelemetry.create(openTelemetry); // GlobalOpenTelemetry.get(), or the host's SDK
    ToolRunner runner = ToolRunner.builder(store).addInterceptor(telemetry.toolInterceptor()).build();
    AgentExecutor executor = AgentExecutor.builder(telemetry.instrument(llm, "openai"), runner)
        .agent(agent)
        .observer(telemetry.agentObserver())
        .build();
    // docs:end telemetry
    return executor;
  }

  /** The newest tool records of a running RCRT server. */
  static List<Breadcrumb> serverTools(String ownerId, String agentId) {
    // docs:begin server-store
    try (RcrtServerStore store = RcrtServerStore.builder("http://localhost:8081")
        .credentials(ownerId, agentId, List.of("curator", "emitter", "subscriber")) // POST /auth/token; or .token(jwt); none for AUTH_MODE=disabled
        .build()) {
      return store.search(Selector.schema("tool.v1"), 50, 0);
    }
    // docs:end server-store
  }
}

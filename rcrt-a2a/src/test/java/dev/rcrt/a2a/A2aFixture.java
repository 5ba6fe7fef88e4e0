package dev.rcrt.a2a;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A store with the builtin tools, the default agent and a {@code wire-money} tool that needs
 * approval and a {@code greet} tool that asks its user's name; a scripted model that calls the
 * calculator for "17 * 23", {@code wire-money} for "pay", {@code greet} for "greet me",
 * answers "slow" only once the test counts {@link #slowRelease} down, and answers with the last tool's result; a runner that takes the A2A
 * caller's decisions; and an {@link A2aServer} on them.
 */
class A2aFixture implements AutoCloseable {
  final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
  final AtomicInteger wired = new AtomicInteger();
  final ToolRunner runner;
  final A2aServer server;

  A2aFixture(Consumer<A2aServer.Builder> settings) {
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money\",\"requires_approval\":true}")).build());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "greet").context(RcrtJson.parse(
        "{\"name\":\"greet\",\"description\":\"Greets the user by the name it asks for\"}")).build());
    runner = ToolRunner.builder(storeSeenByTheServer(store)).approvers(A2aServer.CALLER)
        .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", wired.incrementAndGet()))
        .handler("greet", (in, ctx) -> {
          dev.rcrt.tools.ToolExchange.Elicited said = ctx.elicit(new dev.rcrt.tools.ToolExchange.Elicitation("Your name?",
              RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}")));
          return RcrtJson.object().put("hello", said.content() == null ? "(" + said.action().wire() + ")" : said.content().path("name").asText());
        }).build();
    A2aServer.Builder b = builder(runner);
    settings.accept(b);
    server = b.start();
  }

  A2aFixture() {
    this(b -> {});
  }

  /** The server's builder, before the test's settings; a test may make its executors itself. */
  A2aServer.Builder builder(ToolRunner runner) {
    return A2aServer.builder(model(), runner);
  }

  /** The store the runner and the server use; a test may wrap it to make it fail. */
  dev.rcrt.core.BreadcrumbStore storeSeenByTheServer(dev.rcrt.core.BreadcrumbStore real) {
    return real;
  }

  /** Counted down when the model is asked a "slow" message, when the test lets it answer, and as it answers. */
  final CountDownLatch slowAsked = new CountDownLatch(1);
  final CountDownLatch slowRelease = new CountDownLatch(1);
  final CountDownLatch slowAnswered = new CountDownLatch(1);

  ScriptedLlmClient model() {
    return ScriptedLlmClient.answering(r -> {
      List<ChatMessage> messages = r.messages();
      ChatMessage last = messages.get(messages.size() - 1);
      if ("tool".equals(last.role())) {
        return ChatResponse.text("The answer is " + last.content());
      }
      String said = String.valueOf(r.lastUserMessage() == null ? "" : r.lastUserMessage().content());
      if (said.contains("slow")) {
        slowAsked.countDown();
        try {
          slowRelease.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          slowAnswered.countDown();
        }
        return ChatResponse.text("slowly done");
      }
      if (said.contains("greet me")) {
        return ChatResponse.toolCalls(new ToolCall("call_greet", "greet", "{}"));
      }
      if (said.contains("pay")) {
        return ChatResponse.toolCalls(new ToolCall("call_pay", "wire-money", "{}"));
      }
      if (said.contains("17 * 23")) {
        return ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
      }
      return ChatResponse.text("echo: " + said);
    });
  }

  String endpoint() {
    return server.uri() + "/a2a/default-chat-assistant";
  }

  @Override
  public void close() {
    server.close();
    runner.close();
  }
}

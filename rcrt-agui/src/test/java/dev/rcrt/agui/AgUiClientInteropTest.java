package dev.rcrt.agui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The official AG-UI TypeScript client ({@code @ag-ui/client} 1.0.0 from the npm registry, run by
 * Node 22 from the registry too, whatever Node the machine has: {@link NodePeers}) against the
 * server: it verifies every event it reads, rebuilds the conversation, resumes an interrupt, and
 * survives a connection dropped mid-run, and one dropped while the answer streams.
 */
class AgUiClientInteropTest {
  @Test
  void theOfficialClientRunsAToolCallAndResumesAnApproval() throws Exception {
    Path node = NodePeers.node();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money\",\"requires_approval\":true}")).build());
    AtomicInteger wired = new AtomicInteger();
    ScriptedLlmClient scripted = ScriptedLlmClient.answering(r -> {
      List<ChatMessage> messages = r.messages();
      if ("tool".equals(messages.get(messages.size() - 1).role())) {
        return ChatResponse.text("The answer is " + messages.get(messages.size() - 1).content());
      }
      String said = String.valueOf(r.lastUserMessage() == null ? "" : r.lastUserMessage().content());
      if (said.contains("story")) {
        return ChatResponse.text(STORY);
      }
      return said.contains("pay") ? ChatResponse.toolCalls(new ToolCall("call_pay", "wire-money", "{}"))
          : ChatResponse.toolCalls(new ToolCall("call_1", "calculator", "{\"expression\":\"17 * 23\"}"));
    });
    LlmClient model = new LlmClient() { // streams each answer in fragments of eight characters
      @Override
      public ChatResponse chat(ChatRequest request) {
        return scripted.chat(request);
      }

      @Override
      public ChatResponse chat(ChatRequest request, StreamListener listener) {
        ChatResponse response = scripted.chat(request);
        String text = response.message().content() == null ? "" : response.message().content();
        for (int i = 0; i < text.length(); i += 8) {
          listener.onToken(text.substring(i, Math.min(text.length(), i + 8)));
        }
        return response;
      }
    };
    try (ToolRunner runner = ToolRunner.builder(store).approvers(AgUiServer.CALLER)
            .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", wired.incrementAndGet())).build();
        AgUiServer server = AgUiServer.builder(model, runner).start()) {
      NodePeers.script("resumable-fetch.mjs");
      Process client = new ProcessBuilder(node.toString(), NodePeers.script("client.mjs").toString(),
          server.endpoint("default-chat-assistant").toString()).directory(NodePeers.DIR.toFile()).redirectErrorStream(true).start();
      String out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(client.waitFor(120, TimeUnit.SECONDS)).isTrue();
      assertThat(client.exitValue()).as(out).isZero();
      JsonNode seen = RcrtJson.parse(out.lines().reduce((a, b) -> b).orElse("{}"));

      assertThat(seen.path("first").path("failed").isNull()).as(out).isTrue();
      assertThat(texts(seen.path("first").path("types"))).startsWith("RUN_STARTED").contains("TOOL_CALL_START", "TOOL_CALL_RESULT",
          "TEXT_MESSAGE_CONTENT").endsWith("RUN_FINISHED");
      assertThat(seen.path("paused").path("finished").path("outcome").path("type").asText()).isEqualTo("interrupt");
      assertThat(seen.path("resumed").path("failed").isNull()).as(out).isTrue();
      assertThat(seen.path("resumed").path("finished").path("outcome").path("type").asText()).isEqualTo("success");
      assertThat(wired).hasValue(1);
      // a connection dropped after three events and resumed with Last-Event-ID: every event once, in order
      JsonNode dropped = seen.path("dropped");
      assertThat(dropped.path("failed").isNull()).as(out).isTrue();
      assertThat(dropped.path("reconnects").asInt()).isEqualTo(1);
      assertThat(texts(dropped.path("types"))).containsExactly("RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
          "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED");
      // dropped after the answer's first words: the client verified the joined stream and has the whole answer once
      JsonNode story = seen.path("story");
      assertThat(story.path("failed").isNull()).as(out).isTrue();
      assertThat(story.path("reconnects").asInt()).isEqualTo(1);
      assertThat(texts(story.path("types"))).startsWith("RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT")
          .endsWith("TEXT_MESSAGE_END", "RUN_FINISHED").containsOnlyOnce("TEXT_MESSAGE_START", "TEXT_MESSAGE_END");
      assertThat(texts(story.path("answer"))).containsExactly(STORY);
      // the client rebuilt the conversation from the events: the answer carries the tool's result
      assertThat(seen.path("messages").toString()).contains("391").contains("calculator").contains("wire-money");
    }
  }

  private static final String STORY = "Once upon a time, a breadcrumb found its way home through three processes.";

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

}

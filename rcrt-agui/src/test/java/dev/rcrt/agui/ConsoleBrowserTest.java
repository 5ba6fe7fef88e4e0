package dev.rcrt.agui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.TestEmbeddings;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The console as a person uses it, in real headless Chromium (the machine's {@code chromium}, driven
 * by {@code playwright-core}, {@link NodePeers}): the approvals inbox lists a waiting call, a click
 * approves it as a named approver, and the run's answer shows under Runs without a reload; the
 * trail, tools, search and chat pages work; screenshots of each are written to {@code
 * target/console-screens} (the ones in {@code docs/images} come from here). What a hostile model or
 * tool put in the records ({@code <script>}, {@code javascript:} links, markup in a title) is shown
 * as text and never runs.
 */
class ConsoleBrowserTest {
  private static final String HOSTILE = "<script>window.__pwned=1</script><a href=\"javascript:window.__pwned=2\">click</a>"
      + "<img src=x onerror=\"window.__pwned=3\">";

  @Test
  void aPersonApprovesAWaitingCallAndWatchesTheRunFinishAndNothingFromTheRecordsRuns() throws Exception {
    Path node = NodePeers.node();
    String chromium = NodePeers.chromium();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().embeddings(new TestEmbeddings()).build();
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money to a payee\",\"requires_approval\":true}")).build());
    AtomicInteger wired = new AtomicInteger();
    ScriptedLlmClient model = ScriptedLlmClient.answering(r -> {
      List<ChatMessage> messages = r.messages();
      if ("tool".equals(messages.get(messages.size() - 1).role())) {
        return ChatResponse.text("Paid. " + HOSTILE);
      }
      String said = String.valueOf(r.lastUserMessage() == null ? "" : r.lastUserMessage().content());
      return said.contains("pay") ? ChatResponse.toolCalls(new ToolCall("call_pay", "wire-money",
          RcrtJson.write(RcrtJson.object().put("payee", HOSTILE).put("amount", 40))))
          : ChatResponse.text("Hello from the agent. " + HOSTILE);
    });
    try (ToolRunner runner = ToolRunner.builder(store).approvers(Principal.ofWriter("user:alice"))
            .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", wired.incrementAndGet()).put("note", HOSTILE)).build();
        AgUiServer server = AgUiServer.builder(model, runner).console("alice").start()) {
      String input = "{\"threadId\":\"b1\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\",\"content\":\"pay the plumber\"}]}";
      String stream = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.endpoint("default-chat-assistant"))
          .POST(HttpRequest.BodyPublishers.ofString(input)).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(stream).contains("\"interrupt\"");
      // a record a tool wrote into the run, its title markup
      String runId = store.search(Selector.schema("approval.request.v1"), 1, 0).get(0).tagValue("run:").orElseThrow();
      store.create(BreadcrumbCreate.builder("note.v1", HOSTILE).tags(List.of("run:" + runId)).context(RcrtJson.object().put("text", HOSTILE))
          .createdBy("tool:scribbler").build());

      Path shots = Files.createDirectories(Path.of("target/console-screens").toAbsolutePath());
      Process browser = new ProcessBuilder(node.toString(), NodePeers.script("console.mjs").toString(), server.uri().toString(), chromium,
          shots.toString()).directory(NodePeers.DIR.toFile()).redirectErrorStream(true).start();
      String out = new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(browser.waitFor(180, TimeUnit.SECONDS)).isTrue();
      assertThat(browser.exitValue()).as(out).isZero();
      JsonNode seen = RcrtJson.parse(out.lines().reduce((a, b) -> b).orElse("{}"));

      assertThat(wired).as("approved once, in the page, as alice").hasValue(1);
      assertThat(store.search(Selector.schema("approval.decision.v1"), 10, 0)).singleElement()
          .satisfies(d -> assertThat(d.createdBy()).isEqualTo("user:alice"));
      assertThat(seen.path("approvedAfterRefresh").asBoolean()).as("the decision is still said once the inbox refreshed: %s", out).isTrue();
      assertThat(seen.path("answer").asText()).startsWith("Paid.").contains("<script>"); // shown as the text it is
      assertThat(seen.path("trail").asText()).contains("tool:scribbler").contains("javascript:");
      assertThat(seen.path("chat").asText()).contains("Hello from the agent");
      assertThat(seen.path("search").asText()).contains("wire");
      assertThat(seen.path("pwned").isNull()).as("no script from a record ran: %s", out).isTrue();
      assertThat(seen.path("title").asText()).isEqualTo("RCRT console");
      assertThat(seen.path("scripts").asInt()).as("the console's own script only").isEqualTo(1);
      assertThat(seen.path("javascriptLinks").asInt()).isZero();
      assertThat(seen.path("dialogs")).isEmpty();
      for (String page : List.of("approvals", "runs", "trail", "tools", "search", "chat")) {
        assertThat(shots.resolve("console-" + page + ".png")).isNotEmptyFile();
      }
    }
  }
}

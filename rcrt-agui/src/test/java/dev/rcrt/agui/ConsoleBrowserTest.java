package dev.rcrt.agui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console in a real browser: headless Chromium (the machine's {@code chromium}, which {@code
 * .ci/run} installs) loads the page, which reads the API and draws the approvals inbox. A tool input
 * carrying markup (what a hostile model or tool can put in a record) is shown as text: no element is
 * made from it and no script of it runs. Without Chromium the test is skipped with the reason, except
 * under {@code CI=true}, where it fails.
 */
class ConsoleBrowserTest {
  private static final String PAYLOAD = "<img src=x onerror=\"document.title='pwned'\"><b id=injected>bold</b>";

  @TempDir Path profile;

  @Test
  void theApprovalsInboxShowsAWaitingCallAndItsInputAsTextOnly() throws Exception {
    String chromium = chromium();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    BuiltinTools.seed(store);
    store.create(AgentDefinition.defaultChatAgent());
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire").context(RcrtJson.parse(
        "{\"name\":\"wire-money\",\"description\":\"Sends money\",\"requires_approval\":true}")).build());
    ScriptedLlmClient model = ScriptedLlmClient.answering(r -> ChatResponse.toolCalls(
        new ToolCall("call_pay", "wire-money", RcrtJson.write(RcrtJson.object().put("note", PAYLOAD)))));
    try (ToolRunner runner = ToolRunner.builder(store).approvers(Principal.ofWriter("user:alice"))
            .handler("wire-money", (in, ctx) -> RcrtJson.object().put("sent", true)).build();
        AgUiServer server = AgUiServer.builder(model, runner).console("alice").start()) {
      String input = "{\"threadId\":\"b1\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\",\"content\":\"pay\"}]}";
      String stream = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.endpoint("default-chat-assistant"))
          .POST(HttpRequest.BodyPublishers.ofString(input)).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(stream).contains("\"interrupt\"");

      String dom = dump(chromium, URI.create(server.uri() + "/#approvals"));
      assertThat(dom).contains("Tool 'wire-money' in run").contains("agui:b1").contains("approve").contains("deny");
      // the payload is there as text: escaped in the serialised DOM, never an element
      assertThat(dom).contains("&lt;img src=x onerror=").doesNotContain("<img").doesNotContain("id=\"injected\"");
      assertThat(dom).contains("<title>RCRT console</title>");
    }
  }

  /** The DOM after the page ran: Chromium's {@code --dump-dom}, with virtual time to let its requests finish. */
  private String dump(String chromium, URI page) throws Exception {
    Process p = new ProcessBuilder(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--user-data-dir=" + profile, "--virtual-time-budget=10000", "--dump-dom", page.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("Chromium did not finish within 2 minutes");
    }
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  /** The machine's Chromium; skips (or fails under CI) without one. */
  private static String chromium() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      fail("the console browser test cannot run under CI: no chromium on the PATH (.ci/run installs Debian's chromium)");
    }
    Assumptions.abort("the console browser test skipped: no chromium on the PATH (apt-get install chromium)");
    return "";
  }
}

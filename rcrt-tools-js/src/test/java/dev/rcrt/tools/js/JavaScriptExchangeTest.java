package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.RecordingExchange;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A JavaScript tool talks back to its caller: {@code context.progress}, {@code context.log}, every
 * {@code console} line, {@code context.sample} and {@code context.elicit}, through the worker and
 * the runner's bounds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaScriptExchangeTest {
  private static final String KEY = "js-key-83c1d0e7f2";
  private final ToolHarness h = new ToolHarness(b -> b.secretResolver(SecretResolver.environment(Map.of("API_KEY", KEY))));

  @AfterAll
  void close() {
    h.close();
  }

  private void code(String name, String source, String extra) {
    h.defineJavaScript(name, source, extra);
  }

  private ToolResponse call(String tool, RecordingExchange caller) {
    return h.runner.call(ToolRequest.of(tool, RcrtJson.object(), "host"), ToolCallOptions.host().withExchange(caller));
  }

  @Test
  void progressLogMessagesAndConsoleLinesReachTheCallerInOrderWithTheirLevels() {
    code("chatty", """
        console.log('evaluated ahead of any call: told to nobody');
        export async function execute(input, context) {
          context.progress(1, 3, 'one');
          console.log('plain', {n: 1});
          console.warn('careful');
          console.error('bad');
          console.debug('detail');
          context.log('notice', 'noted');
          await new Promise((done) => setTimeout(done, 10));
          context.progress(3, 3);
          return {};
        }""", "");
    RecordingExchange caller = new RecordingExchange();
    ToolResponse r = call("chatty", caller);
    assertThat(r.error()).isNull();
    assertThat(caller.seen).containsExactly(
        "progress 1.0/3.0 one", "info plain {\"n\":1}", "warning careful", "error bad", "debug detail", "notice noted", "progress 3.0/3.0 null");
  }

  @Test
  void aToolAsksTheCallersModelAndUserAndGetsTheirAnswers() {
    code("asker", """
        export async function execute(input, context) {
          const model = await context.sample('What is 2 + 2?', { maxTokens: 5, systemPrompt: 'Be brief' });
          const user = await context.elicit('Your name?', { type: 'object', properties: { name: { type: 'string' } } });
          return { model: model.text, by: model.model, action: user.action, name: user.content.name };
        }""", "");
    RecordingExchange caller = new RecordingExchange();
    ToolResponse r = call("asker", caller);
    assertThat(r.error()).isNull();
    assertThat(r.output().toString()).isEqualTo("{\"model\":\"four\",\"by\":\"test-model\",\"action\":\"accept\",\"name\":\"Ada\"}");
    assertThat(caller.samplings).singleElement().satisfies(s -> {
      assertThat(s.messages()).singleElement().satisfies(m -> assertThat(m.text()).isEqualTo("What is 2 + 2?"));
      assertThat(s.systemPrompt()).isEqualTo("Be brief");
      assertThat(s.maxTokens()).isEqualTo(5);
    });
    assertThat(caller.elicitations).singleElement().satisfies(e -> assertThat(e.requestedSchema().at("/properties/name/type").asText()).isEqualTo("string"));
  }

  @Test
  void aSecretPrintedToTheConsoleReachesTheCallerScrubbedAndAFloodIsCut() {
    code("leaky", """
        export async function execute(input, context) {
          const key = context.secrets.API_KEY;
          console.log('using ' + key);
          for (let i = 0; i < 20000; i++) console.log('line ' + i);
          return {};
        }""", ",\"required_secrets\":[\"API_KEY\"]");
    RecordingExchange caller = new RecordingExchange();
    ToolResponse r = call("leaky", caller);
    assertThat(r.error()).isNull();
    assertThat(caller.seen).startsWith("info using [secret]").doesNotContain("info using " + KEY)
        .contains("warning tool 'leaky' sent more than 1000 log messages; the rest of this call's are dropped").hasSize(1_001);
  }

  @Test
  void aCallerThatOffersNoSamplingRejectsThePromiseWithWhy() {
    code("hopeful", """
        export async function execute(input, context) {
          try { await context.sample('hello'); return { asked: true }; }
          catch (e) { return { refused: String(e.message) }; }
        }""", "");
    ToolResponse r = h.call("hopeful", "{}");
    assertThat(r.error()).isNull();
    assertThat(r.output().path("refused").asText()).contains("asked its caller's model (sampling), and this caller offers none");

    code("careless", """
        export async function execute(input, context) {
          return { said: (await context.sample('hello')).text };
        }""", "");
    ToolResponse failed = h.call("careless", "{}");
    assertThat(failed.error()).as("the tool's own line, not the runtime's").contains("sampling), and this caller offers none", "careless.mjs:2")
        .doesNotContain("prelude", "Unnamed");
  }
}

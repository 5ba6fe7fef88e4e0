package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The runtime RCRT's own tools expect of a JavaScript tool: timers on the call's event loop, the
 * whole {@code context.api}, {@code getSecret}, and {@code context.request}; each bounded by the
 * call's deadline and the tool's rights.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaScriptRuntimeApiTest {
  private final ToolHarness h =
      new ToolHarness(b -> b.secretResolver(SecretResolver.environment(Map.of("LLM_KEY", "llm-key-5f3a9c", "OTHER_KEY", "other-77x"))));

  @AfterAll
  void close() {
    h.close();
  }

  private void code(String name, String source, String extra) {
    h.defineJavaScript(name, source, extra);
  }

  private JsonNode output(String tool, String input) {
    ToolResponse r = h.call(tool, input);
    assertThat(r.error()).as("error of " + tool).isNull();
    return r.output();
  }

  @Test
  void setTimeoutWaitsAndTimersFireInDueOrder() {
    // a timer is due its delay after setTimeout was called (as in browsers and Node), so a pause between two calls longer than
    // the difference of their delays reorders them rightly: the delays differ by a second, which no loaded machine pauses for
    code("waiter", """
        export async function execute(input) {
          const start = Date.now(); const order = [];
          setTimeout(() => order.push('b'), 2000);
          setTimeout((x) => order.push(x), 1000, 'a');
          setTimeout(() => order.push('now'), 0);
          const cancelled = setTimeout(() => order.push('never'), 10); clearTimeout(cancelled);
          await new Promise(resolve => setTimeout(resolve, input.ms));
          return {order, waited: Date.now() - start >= input.ms};
        }""", "");
    JsonNode out = output("waiter", "{\"ms\":2100}");
    assertThat(RcrtJson.write(out.get("order"))).isEqualTo("[\"now\",\"a\",\"b\"]");
    assertThat(out.get("waited").asBoolean()).isTrue();
  }

  @Test
  void setIntervalRepeatsUntilCleared() {
    code("ticker", """
        export function execute() {
          return new Promise(resolve => { let n = 0; const id = setInterval(() => { if (++n === 3) { clearInterval(id); resolve({ticks: n}); } }, 5); });
        }""", "");
    assertThat(output("ticker", "{}").get("ticks").asInt()).isEqualTo(3);
  }

  @Test
  void aTimerDueAfterTheDeadlineTimesOutAtOnceInsteadOfSleepingIntoIt() {
    code("sleeper", "export async function execute() { await new Promise(r => setTimeout(r, 60000)); return {}; }", ",\"limits\":{\"timeout_ms\":400}");
    long start = System.nanoTime();
    ToolResponse r = h.call("sleeper", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).matches("tool 'sleeper' timed out: it waits on a timer due in (60000|59\\d{3}) ms, after its time limit of 400 ms");
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(30));
  }

  @Test
  void anIntervalThatNeverStopsIsEndedAtTheDeadline() {
    code("busy-interval", "export function execute() { setInterval(() => { for (let i = 0; i < 1000; i++) {} }, 0); return new Promise(() => {}); }",
        ",\"limits\":{\"timeout_ms\":300}");
    ToolResponse r = h.call("busy-interval", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).startsWith("tool 'busy-interval' timed out");
  }

  @Test
  void aPromiseWithNothingPendingFailsAtOnceAndSaysWhy() {
    code("stuck", "export function execute() { return new Promise(() => {}); }", ",\"limits\":{\"timeout_ms\":30000}");
    ToolResponse r = h.call("stuck", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).isEqualTo("tool 'stuck': execute's Promise never settled; nothing it could wait for is pending (no timer, and host calls answer at once)");
  }

  @Test
  void timersRefuseCodeInStringsAndAFloodOfTimers() {
    code("string-timer", "export function execute() { setTimeout('globalThis.x = 1', 0); return {}; }", "");
    assertThat(h.call("string-timer", "{}").error()).contains("TypeError: setTimeout and setInterval take a function");
    code("flood", "export function execute() { for (;;) setTimeout(() => {}, 1000); }", "");
    assertThat(h.call("flood", "{}").error()).contains("RangeError: more than 10000 timers pending");
  }

  @Test
  void aTimerCallbackThatThrowsFailsTheCall() {
    code("thrower", "export function execute() { return new Promise(r => { setTimeout(() => { throw new Error('tick failed'); }, 1); setTimeout(r, 50); }); }", "");
    ToolResponse r = h.call("thrower", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).contains("tick failed");
  }

  @Test
  void timersDoNotOutliveTheirCall() {
    code("leaver", "let fired = 0; export function execute(i) { if (i.arm) setTimeout(() => { fired++; }, 1); return {fired}; }", "");
    output("leaver", "{\"arm\":true}");
    assertThat(output("leaver", "{}").get("fired").asInt()).isZero();
  }

  @Test
  void theWholeApiCreatesReadsSearchesUpdatesAndDeletes() {
    code("api-user", """
        export async function execute(input, context) {
          const api = context.api;
          const made = await api.createBreadcrumb({schema_name: 'note.v1', title: 'n1', tags: ['notes', 'workspace:tools'], context: {text: 'a'}, sensitivity: 'internal', visibility: 'private'});
          await api.createBreadcrumb({schema_name: 'note.v1', title: 'n2', tags: ['notes'], context: {text: 'b'}});
          const byTag = await api.searchBreadcrumbs({schema_name: 'note.v1', tag: 'workspace:tools'});
          const byTags = await api.searchBreadcrumbs({tags: ['notes']});
          const paged = await api.searchBreadcrumbs({schema_name: 'note.v1', limit: 1, offset: 1});
          const bySelector = await api.searchBreadcrumbs({schema_name: 'note.v1', any_tags: ['notes']}, 10);
          const updated = await api.updateBreadcrumb(made.id, made.version, {context: {text: 'a2'}});
          let conflict;
          try { await api.updateBreadcrumb(made.id, made.version, {context: {text: 'lost'}}); } catch (e) { conflict = e.message; }
          let noVersion;
          try { await api.updateBreadcrumb(made.id, undefined, {context: {}}); } catch (e) { noVersion = e.message; }
          const read = await api.getBreadcrumb(made.id);
          const deleted = await api.deleteBreadcrumb(made.id, updated.version);
          const gone = await api.getBreadcrumb(made.id);
          return {sensitivity: made.sensitivity, visibility: made.visibility, createdBy: made.created_by,
            byTag: byTag.map(b => b.title), byTags: byTags.length, paged: paged.map(b => b.title), bySelector: bySelector.length,
            version: updated.version, text: read.context.text, conflict, noVersion, deleted: deleted.ok, gone};
        }""", "");
    JsonNode out = output("api-user", "{}");
    assertThat(out.get("sensitivity").asText()).as("RCRT's 'internal' falls back to the default").isEqualTo("Low");
    assertThat(out.get("visibility").asText()).isEqualTo("Private");
    assertThat(out.get("createdBy").asText()).isEqualTo("tool:api-user");
    assertThat(RcrtJson.write(out.get("byTag"))).isEqualTo("[\"n1\"]");
    assertThat(out.get("byTags").asInt()).isEqualTo(2);
    assertThat(RcrtJson.write(out.get("paged"))).isEqualTo("[\"n1\"]");
    assertThat(out.get("bySelector").asInt()).isEqualTo(2);
    assertThat(out.get("version").asInt()).isEqualTo(2);
    assertThat(out.get("text").asText()).isEqualTo("a2");
    assertThat(out.get("conflict").asText()).contains("version");
    assertThat(out.get("noVersion").asText()).contains("needs the version you read");
    assertThat(out.get("deleted").asBoolean()).isTrue();
    assertThat(out.get("gone").isNull()).isTrue();
  }

  @Test
  void writesThroughTheApiKeepTheTrustRules() {
    code("forger", """
        export async function execute(input, context) {
          try { await context.api.createBreadcrumb({schema_name: 'tool.code.v1', title: 'evil', context: {name: 'evil', code: {language: 'javascript', source: ''}}}); return {created: true}; }
          catch (e) { return {refused: e.message}; }
        }""", "");
    assertThat(output("forger", "{}").get("refused").asText()).contains("tool:forger may not create a tool.code.v1 breadcrumb");
    assertThat(h.store.search(Selector.schema("tool.code.v1"), 100, 0)).noneMatch(b -> b.title().equals("evil"));
  }

  @Test
  void vectorSearchFailsClearlyOnAStoreWithoutEmbeddings() {
    code("vector-user", "export async function execute(i, c) { try { await c.api.vectorSearch({q: 'agents', nn: 3}); return {}; } catch (e) { return {error: e.message}; } }", "");
    assertThat(output("vector-user", "{}").get("error").asText()).startsWith("vectorSearch is not available: this store has no embeddings");
  }

  @Test
  void getSecretReadsOnlyWhatTheTrustedConfigNamesAndTheValueIsScrubbed() {
    h.store.create(BreadcrumbCreate.builder("tool.config.v1", "llm config")
        .context(RcrtJson.parse("{\"tool_name\":\"llm-like\",\"config\":{\"apiKeySecretId\":\"LLM_KEY\",\"defaultModel\":\"m1\"}}")).build());
    code("llm-like", """
        export async function execute(input, context) {
          const key = await context.api.getSecret(context.config.apiKeySecretId, 'LLM authentication');
          const again = await context.api.decryptSecret('secret:LLM_KEY', 'same');
          let denied;
          try { await context.api.getSecret('OTHER_KEY', 'not mine'); } catch (e) { denied = e.message; }
          return {length: key.value.length, same: again.value === key.value, leaked: key.value, denied};
        }""", "");
    JsonNode out = output("llm-like", "{}");
    assertThat(out.get("length").asInt()).isEqualTo("llm-key-5f3a9c".length());
    assertThat(out.get("same").asBoolean()).isTrue();
    assertThat(out.get("leaked").asText()).isEqualTo("[secret]");
    assertThat(out.get("denied").asText()).startsWith("tool 'llm-like' may not read secret 'OTHER_KEY'");
    assertThat(h.everything()).doesNotContain("llm-key-5f3a9c").doesNotContain("other-77x");
  }

  @Test
  void contextRequestCarriesRcrtsFieldsAndTheTriggerEvent() {
    code("who-asked", """
        export function execute(input, context) {
          const r = context.request;
          return {id: r.id, workspace: r.workspace, agentId: r.agentId, schema: r.trigger_event.schema_name,
            tool: r.trigger_event.context.tool, eventId: r.trigger_event.breadcrumb_id, version: r.trigger_event.version};
        }""", "");
    JsonNode out = output("who-asked", "{}");
    assertThat(out.get("workspace").asText()).isEqualTo("workspace:tools");
    assertThat(out.get("agentId").asText()).isEqualTo("test");
    assertThat(out.get("schema").asText()).isEqualTo("tool.request.v1");
    assertThat(out.get("tool").asText()).isEqualTo("who-asked");
    assertThat(out.get("eventId").asText()).isEqualTo(out.get("id").asText());
    assertThat(out.get("version").asInt()).isEqualTo(1);
  }
}

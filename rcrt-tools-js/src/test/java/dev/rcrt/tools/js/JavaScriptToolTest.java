package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** JavaScript and TypeScript tools on real GraalJS. One runner (and engine) for the class. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JavaScriptToolTest {
  private final ToolHarness h =
      new ToolHarness(b -> b.secretResolver(SecretResolver.environment(Map.of("WEATHER_KEY", "wk-123456", "OTHER_KEY", "ok-999999"))));

  @AfterAll
  void close() {
    h.close();
  }

  /** A tool.code.v1 with inline code. */
  private void code(String name, String language, String source, String extra) {
    h.define("tool.code.v1", """
        {"name":"%s","description":"test tool","code":{"language":"%s","source":%s},
         "input_schema":{"type":"object"}%s}
        """.formatted(name, language, RcrtJson.write(RcrtJson.nodes().textNode(source)), extra));
  }

  @Test
  void anAsyncExecuteIsAwaitedAndItsResultIsTheOutput() {
    code("adder", "javascript", "export async function execute(input, context) { await null; return {sum: input.a + input.b, id: context.request.id.length > 0}; }", "");
    ToolResponse r = h.call("adder", "{\"a\":2,\"b\":3}");
    assertThat(r.error()).isNull();
    assertThat(RcrtJson.write(r.output())).isEqualTo("{\"sum\":5,\"id\":true}");
  }

  @Test
  void aSynchronousExecuteWorksToo() {
    code("sync", "javascript", "export function execute(input) { return [input.x, 'done']; }", "");
    assertThat(RcrtJson.write(h.call("sync", "{\"x\":1}").output())).isEqualTo("[1,\"done\"]");
  }

  @Test
  void typescriptIsTranspiledAndRun() {
    code("ts-double", "typescript",
        "interface In { n: number }\nexport async function execute(input: In, context: unknown): Promise<{doubled: number}> {\n  const n: number = input.n;\n  return { doubled: n * 2 };\n}", "");
    assertThat(h.call("ts-double", "{\"n\":21}").output().get("doubled").asInt()).isEqualTo(42);
  }

  @Test
  void typescriptThatDoesNotCompileNamesLineAndColumn() {
    code("ts-broken", "typescript", "export function execute(input: number {\n  return input;\n}", "");
    ToolResponse r = h.call("ts-broken", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_definition_invalid");
    assertThat(r.error()).startsWith("tool 'ts-broken' TypeScript does not compile: line 1, column 39: ',' expected.");
  }

  @Test
  void aJavaScriptSyntaxErrorNamesTheLocation() {
    code("js-broken", "javascript", "export function execute(input) {\n  return {;\n}", "");
    ToolResponse r = h.call("js-broken", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_definition_invalid");
    assertThat(r.error()).contains("syntax error at line 2");
  }

  @Test
  void codeWithoutTheHandlerExportSaysWhatToWrite() {
    code("no-export", "javascript", "export function run(input) { return {}; }", "");
    assertThat(h.call("no-export", "{}").error()).contains("does not export a function 'execute'");
  }

  @Test
  void anEndlessLoopIsStoppedAtTheTimeoutAndReportedAsATimeout() {
    code("spin", "javascript", "export function execute() { while (true) {} }", ",\"limits\":{\"timeout_ms\":300}");
    ToolResponse r = h.call("spin", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).isEqualTo("tool 'spin' timed out after 300 ms");
    assertThat(Thread.currentThread().isInterrupted()).as("no interrupt outlives the call").isFalse();
    code("spin-then-ok", "javascript", "let calls = 0; export function execute(i) { calls++; if (i.spin) { while (true) {} } return {calls}; }", ",\"limits\":{\"timeout_ms\":300}");
    assertThat(h.call("spin-then-ok", "{\"spin\":true}").errorCode()).isEqualTo("tool_timeout");
    assertThat(h.call("spin-then-ok", "{}").output().get("calls").asInt()).as("each call has a fresh context").isEqualTo(1);
  }

  @Test
  void aRecursionThatCatchesItsOwnStackOverflowIsStoppedAtItsLimitAndTheNextCallWorks() {
    code("catcher", "javascript",
        "function f(n) { try { return f(n + 1) + 1; } catch (e) { return f(n + 1); } } export function execute() { return f(0); }",
        ",\"limits\":{\"timeout_ms\":500}");
    ToolResponse r = h.call("catcher", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_timeout");
    assertThat(r.error()).isEqualTo("tool 'catcher' timed out after 500 ms");
    code("after-catcher", "javascript", "export function execute() { return {ok: true}; }", "");
    assertThat(h.call("after-catcher", "{}").output().get("ok").asBoolean()).isTrue();
  }

  @Test
  void aGuestThatFillsItsWorkersHeapEndsThatWorkerWithAMemoryErrorAndTheHostIsUntouched() {
    code("heap-filler", "javascript",
        "export function execute() { const keep = []; for (;;) { keep.push('x'.repeat(1 << 20) + keep.length); } }",
        ",\"limits\":{\"timeout_ms\":60000,\"memory_mb\":100000}");
    ToolResponse r = h.call("heap-filler", "{}");
    assertThat(r.errorCode()).as(r.error()).isEqualTo("tool_memory_limit");
    assertThat(r.error()).startsWith("tool 'heap-filler' filled the JavaScript worker's ").endsWith(" MB heap and was stopped (limits.memory_mb is 100000)");
    code("after-filler", "javascript", "export function execute() { return {ok: true}; }", "");
    assertThat(h.call("after-filler", "{}").output().get("ok").asBoolean()).isTrue();
  }

  @Test
  void manyCallsAtOnceShareTheWorkersAndEachGetsItsOwnResult() throws Exception {
    code("echo-n", "javascript", "export async function execute(input, context) { return {n: input.n, id: context.request.id}; }", "");
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
    try {
      java.util.List<java.util.concurrent.Future<ToolResponse>> calls = new java.util.ArrayList<>();
      for (int i = 0; i < 128; i++) {
        int n = i;
        calls.add(pool.submit(() -> h.call("echo-n", "{\"n\":" + n + "}")));
      }
      java.util.Set<String> ids = new java.util.HashSet<>();
      for (int i = 0; i < calls.size(); i++) {
        ToolResponse r = calls.get(i).get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(r.error()).isNull();
        assertThat(r.output().get("n").asInt()).isEqualTo(i);
        ids.add(r.output().get("id").asText());
      }
      assertThat(ids).as("each call saw its own request").hasSize(128);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void runawayScriptsRunningAtOnceAreEachStoppedAtTheirOwnLimit() throws Exception {
    code("spin-a", "javascript", "export function execute() { while (true) {} }", ",\"limits\":{\"timeout_ms\":200}");
    code("spin-b", "javascript", "export function execute() { let x = 0; for (;;) { x++; } }", ",\"limits\":{\"timeout_ms\":400}");
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      // earlier tests' runaways killed workers; a call that waits for one to start is charged that
      // wait (and ends "waited ... for a JavaScript worker to start"), so two workers are brought up first
      twoWorkersUp(pool);
      var a = pool.submit(() -> h.call("spin-a", "{}"));
      var b = pool.submit(() -> h.call("spin-b", "{}"));
      assertThat(a.get(30, java.util.concurrent.TimeUnit.SECONDS).error()).isEqualTo("tool 'spin-a' timed out after 200 ms");
      assertThat(b.get(30, java.util.concurrent.TimeUnit.SECONDS).error()).isEqualTo("tool 'spin-b' timed out after 400 ms");
      assertThat(pool.submit(() -> Thread.currentThread().isInterrupted()).get()).isFalse();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Returns once two workers are up and idle: two calls of a tool that answers only when both of
   * them reach a local HTTP server, so each ran on a worker of its own.
   */
  private void twoWorkersUp(java.util.concurrent.ExecutorService pool) throws Exception {
    java.util.concurrent.CountDownLatch both = new java.util.concurrent.CountDownLatch(2);
    com.sun.net.httpserver.HttpServer meeting =
        com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    meeting.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(2));
    meeting.createContext("/", exchange -> {
      both.countDown();
      try {
        boolean met = both.await(2, java.util.concurrent.TimeUnit.MINUTES);
        byte[] body = ("{\"met\":" + met + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        exchange.close();
      }
    });
    meeting.start();
    try {
      String hostPort = "127.0.0.1:" + meeting.getAddress().getPort();
      code("meet", "javascript", "export async function execute() { return await (await fetch('http://" + hostPort + "/')).json(); }",
          ",\"permissions\":{\"net\":[\"" + hostPort + "\"]},\"limits\":{\"timeout_ms\":180000}");
      var first = pool.submit(() -> h.call("meet", "{}"));
      var second = pool.submit(() -> h.call("meet", "{}"));
      for (var call : java.util.List.of(first, second)) {
        ToolResponse r = call.get(3, java.util.concurrent.TimeUnit.MINUTES);
        assertThat(r.error()).isNull();
        assertThat(r.output().get("met").asBoolean()).isTrue();
      }
    } finally {
      meeting.stop(0);
      ((java.util.concurrent.ExecutorService) meeting.getExecutor()).shutdownNow();
    }
  }

  @Test
  void typescriptThatBreaksTheCompilerOrPassesTheSizeLimitIsAnInvalidDefinitionAndOthersStillCompile() {
    String deep = "(".repeat(3_000) + "1" + ")".repeat(3_000);
    code("ts-deep", "typescript", "export function execute(): number { return " + deep + "; }", "");
    ToolResponse r = h.call("ts-deep", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_definition_invalid");
    assertThat(r.error()).startsWith("tool 'ts-deep' TypeScript could not be transpiled: ");

    String huge = "export function execute() { return {}; }\n//" + "x".repeat(1 << 20);
    code("ts-huge", "typescript", huge, "");
    assertThat(h.call("ts-huge", "{}").error())
        .isEqualTo("tool 'ts-huge' TypeScript source is " + huge.length() + " characters; the limit is 1048576");

    code("ts-fine", "typescript", "export function execute(i: {n: number}): {n: number} { return {n: i.n * 3}; }", "");
    assertThat(h.call("ts-fine", "{\"n\":5}").output().get("n").asInt()).isEqualTo(15);
  }

  @Test
  void noCallSeesWhatAnEarlierCallLeftBehindBobNeverSeesAlice() {
    code("profile", "javascript", """
        const seen = [];
        export function execute(input, context) {
          const before = {stash: globalThis.__stash ?? null, seen: seen.length, parsePatched: JSON.parse.length !== 2,
                          mapPatched: Array.prototype.map.toString().indexOf('native code') < 0};
          seen.push(input);
          globalThis.__stash = {input, request: context.request.id};
          const original = JSON.parse;
          JSON.parse = (t) => ({leaked: original(t)});
          Array.prototype.map = function () { return ['hijacked']; };
          return before;
        }
        """, "");
    ToolResponse alice = h.call("profile", "{\"user\":\"alice\",\"ssn\":\"123-45-6789\"}");
    assertThat(alice.error()).isNull();
    ToolResponse bob = h.call("profile", "{\"user\":\"bob\"}");
    assertThat(bob.error()).isNull();
    assertThat(RcrtJson.write(bob.output())).isEqualTo("{\"stash\":null,\"seen\":0,\"parsePatched\":false,\"mapPatched\":false}");
  }

  @Test
  void aSearchWhoseCostIsUnboundedIsRefusedToTheScriptInsteadOfOutrunningItsDeadline() {
    h.store.create(dev.rcrt.core.BreadcrumbCreate.builder("note.v1", "bait").context(RcrtJson.object().put("s", "a".repeat(34) + "b")).build());
    code("redos", "javascript", """
        export async function execute(input, context) {
          try {
            await context.api.searchBreadcrumbs({context_match: [{path: "$..[?(@.s=~/(.*a){12}c/)]", op: "exists", value: true}]}, 10);
            return {searched: true};
          } catch (e) { return {refused: String(e.message)}; }
        }
        """,
        ",\"limits\":{\"timeout_ms\":2000}");
    ToolResponse r = h.call("redos", "{}");
    assertThat(r.output().get("refused").asText()).contains("regular-expression filters (=~)");
  }

  @Test
  void aMemoryBombIsStoppedAtItsBudgetWithAMemoryErrorAndTheNextCallWorks() {
    code("bomb", "javascript", "export function execute() { const keep = []; for (;;) { keep.push(new Array(100000).fill(keep.length)); } }",
        ",\"limits\":{\"timeout_ms\":20000,\"memory_mb\":64}");
    ToolResponse r = h.call("bomb", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_memory_limit");
    assertThat(r.error()).isEqualTo("tool 'bomb' allocated more than 64 MB (limits.memory_mb) and was stopped");
    code("after-bomb", "javascript", "export function execute() { return {ok: true}; }", "");
    assertThat(h.call("after-bomb", "{}").output().get("ok").asBoolean()).isTrue();
  }

  @Test
  void aThrownErrorBecomesAnErrorResponseWithItsMessageAndLocation() {
    code("thrower", "javascript", "export function execute() {\n  throw new Error('boom');\n}", "");
    ToolResponse r = h.call("thrower", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    assertThat(r.error()).startsWith("tool 'thrower' threw Error: boom").contains("thrower.mjs:2");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "return undefined;|returned undefined",
      "return () => 1;|returned a function, which is not a JSON value",
      "return 10n;|returned a value that is not JSON",
  })
  void aResultThatIsNotJsonIsAnError(String body, String expected) {
    String name = "bad-result-" + Math.abs(body.hashCode());
    code(name, "javascript", "export function execute() { " + body + " }", "");
    assertThat(h.call(name, "{}").error()).contains(expected);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "Java.type('java.lang.System').exit(1)|Java is not defined",
      "Polyglot.eval('js', '1')|Polyglot is not defined",
      "load('/etc/passwd')|",
      "require('fs')|require is not defined",
      "process.env|process is not defined",
      "new Worker('x.js')|Worker is not defined",
      "await import('/etc/passwd')|",
  })
  void everyEscapeHatchIsClosed(String attempt, String expected) {
    String name = "escape-" + Math.abs(attempt.hashCode());
    code(name, "javascript", "export async function execute() { return {got: String(" + attempt + ")}; }", "");
    ToolResponse r = h.call(name, "{}");
    assertThat(r.success()).as(attempt).isFalse();
    assertThat(r.errorCode()).isEqualTo("tool_failed");
    if (expected != null) {
      assertThat(r.error()).contains(expected);
    }
  }

  @Test
  void aToolSeesOnlyTheSecretsItDeclaresAndTheirValuesAreNeverRecorded() {
    code("secretive", "javascript",
        "export function execute(input, context) { console.log('key is ' + context.secrets.WEATHER_KEY);"
            + " return {declared: context.secrets.WEATHER_KEY, undeclared: String(context.secrets.OTHER_KEY), names: Object.keys(context.secrets)}; }",
        ",\"required_secrets\":[\"WEATHER_KEY\"]");
    ToolResponse r = h.call("secretive", "{}");
    assertThat(r.output().get("undeclared").asText()).isEqualTo("undefined");
    assertThat(r.output().get("names").toString()).isEqualTo("[\"WEATHER_KEY\"]");
    assertThat(r.output().get("declared").asText()).isEqualTo("[secret]");
    assertThat(h.everything()).doesNotContain("wk-123456").doesNotContain("ok-999999");
  }

  @Test
  void aMissingDeclaredSecretIsNamedWithoutAnyValue() {
    code("needs-missing", "javascript", "export function execute() { return {}; }", ",\"required_secrets\":[\"secret:NOT_SET_ANYWHERE\"]");
    ToolResponse r = h.call("needs-missing", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_secret_missing");
    assertThat(r.error()).contains("needs secret 'NOT_SET_ANYWHERE', which is not set");
  }

  @Test
  void consoleOutputCannotCorruptTheResult() {
    code("chatty", "javascript", "export function execute() { console.log('{\"fake\":true}'); console.info('noise'); console.error('more'); return {real: true}; }", "");
    assertThat(RcrtJson.write(h.call("chatty", "{}").output())).isEqualTo("{\"real\":true}");
  }

  @Test
  void theApiReadsSearchesAndCreatesBreadcrumbsInTheRunnersStore() {
    Breadcrumb note = h.store.create(BreadcrumbCreate.builder("note.v1", "hello").tags("n").context(RcrtJson.parse("{\"text\":\"hi\"}")).build());
    code("api-user", "javascript",
        "export async function execute(input, context) {"
            + " const got = await context.api.getBreadcrumb(input.id);"
            + " const found = await context.api.searchBreadcrumbs({schema_name: 'note.v1', all_tags: ['n']});"
            + " const made = await context.api.createBreadcrumb({schema_name: 'note.v1', title: 'from js', context: {by: 'js'}});"
            + " let bad; try { await context.api.searchBreadcrumbs({context_match: [{path: '$.a', op: 'near'}]}); } catch (e) { bad = e.message; }"
            + " return {text: got.context.text, count: found.length, made: made.version, bad}; }", "");
    ToolResponse r = h.call("api-user", "{\"id\":\"" + note.id() + "\"}");
    assertThat(r.error()).isNull();
    assertThat(r.output().get("text").asText()).isEqualTo("hi");
    assertThat(r.output().get("count").asInt()).isEqualTo(1);
    assertThat(r.output().get("made").asInt()).isEqualTo(1);
    assertThat(r.output().get("bad").asText()).contains("unknown value 'near'");
  }

  @Test
  void withoutNetPermissionThereIsNoFetch() {
    code("offline", "javascript", "export function execute() { return {fetch: typeof fetch}; }", "");
    assertThat(h.call("offline", "{}").output().get("fetch").asText()).isEqualTo("undefined");
  }

  @Test
  void theSandboxHasNoShellGlobalsThatReadFilesOrPrintPastTheLog() {
    code("shell", "javascript",
        "export function execute() { return {print: typeof print, load: typeof load, loadWithNewGlobal: typeof loadWithNewGlobal,"
            + " quit: typeof quit, read: typeof read, readline: typeof readline, console: typeof console}; }", "");
    var out = h.call("shell", "{}").output();
    assertThat(out.get("print").asText()).isEqualTo("undefined");
    assertThat(out.get("load").asText()).isEqualTo("undefined");
    assertThat(out.get("loadWithNewGlobal").asText()).isEqualTo("undefined");
    assertThat(out.get("quit").asText()).isEqualTo("undefined");
    assertThat(out.get("read").asText()).isEqualTo("undefined");
    assertThat(out.get("readline").asText()).isEqualTo("undefined");
    assertThat(out.get("console").asText()).as("console stays: it goes to the log").isEqualTo("object");
  }

  @Test
  void codeInAnotherBreadcrumbRunsItsNewVersionAfterAnUpdate() {
    Breadcrumb impl = h.store.create(BreadcrumbCreate.builder("code.v1", "impl").id("tool-impl-greet-v1")
        .context(RcrtJson.parse("{\"code\":\"export function greet(i) { return {text: 'hello ' + i.name}; }\"}")).build());
    h.define("tool.v1", """
        {"name":"greet","implementation":{"type":"breadcrumb","runtime":"javascript","breadcrumb_id":"tool-impl-greet-v1","handler":"greet"},
         "definition":{"inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}
        """);
    assertThat(h.call("greet", "{\"name\":\"ada\"}").output().get("text").asText()).isEqualTo("hello ada");

    h.store.update(impl.id(), impl.version(), BreadcrumbUpdate.ofContext(
        RcrtJson.parse("{\"code\":{\"language\":\"typescript\",\"source\":\"export function greet(i: {name: string}) { return {text: 'hi ' + i.name}; }\"}}")));
    assertThat(h.call("greet", "{\"name\":\"ada\"}").output().get("text").asText()).isEqualTo("hi ada");
  }

  @Test
  void anUpdatedToolBreadcrumbRunsItsNewCodeAndADeletedOneIsGone() {
    code("versioned", "javascript", "export function execute() { return {v: 1}; }", "");
    assertThat(h.call("versioned", "{}").output().get("v").asInt()).isEqualTo(1);
    Breadcrumb tool = h.store.search(dev.rcrt.core.Selector.schema("tool.code.v1").withMatch(dev.rcrt.core.ContextMatch.eq("$.name", "versioned")), 1, 0).get(0);
    var updated = tool.context().deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) updated.get("code")).put("source", "export function execute() { return {v: 2}; }");
    h.store.update(tool.id(), tool.version(), BreadcrumbUpdate.ofContext(updated));
    assertThat(h.call("versioned", "{}").output().get("v").asInt()).isEqualTo(2);

    h.store.delete(tool.id());
    assertThat(h.call("versioned", "{}").errorCode()).isEqualTo("tool_not_found");
  }

  @Test
  void moduleStateDoesNotCarryFromOneCallToTheNext() {
    code("counter", "javascript", "let n = 0; export function execute() { n++; return {n}; }", "");
    h.call("counter", "{}");
    assertThat(h.call("counter", "{}").output().get("n").asInt()).isEqualTo(1);
  }
}

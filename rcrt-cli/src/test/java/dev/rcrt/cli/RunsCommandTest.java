package dev.rcrt.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.postgres.TestPostgres;
import dev.rcrt.testing.LogWaits;
import dev.rcrt.testing.ScriptedLlmClient;
import dev.rcrt.testing.StoreWaits;
import dev.rcrt.testing.TestClock;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code chat --wait}, {@code chat --no-wait} and {@code runs} on a shared PostgreSQL store,
 * answered by {@code runner --agents}; a tool's question answered with {@code runs answer}.
 */
class RunsCommandTest {
  @RegisterExtension
  static WireMockExtension model = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  @TempDir Path logs;

  @Test
  void inEventModeWithNoRunnerChatSaysWhatItWaitsForAndGivesUpAfterWait() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    CliHarness chat = CliHarness.run("chat", "--store", url, "--tool-mode", "event", "--wait", "3s", "What is 17 * 23?");
    assertThat(chat.status).as(chat.err()).isEqualTo(1);
    assertThat(chat.err()).contains("waiting for a runner to answer 'calculator'")
        .contains("stopped waiting after 3 s").contains("./rcrt runs show");
    // the hint works when pasted: the store URL keeps its user, port, database and schema, and hides only a password
    java.util.regex.Matcher hint = java.util.regex.Pattern.compile("\\./rcrt (runs show \\S+ --store \\S+)\\)").matcher(chat.err());
    assertThat(hint.find()).as(chat.err()).isTrue();
    String shown = hint.group(1);
    assertThat(shown).contains("?schema=").doesNotContain(":***@").isEqualTo(shown.replace(url.replaceAll(":[^:@/]*@", "@"), url));
    CliHarness pasted = CliHarness.run(shown.split(" "));
    assertThat(pasted.status).as(pasted.err()).isZero();
    assertThat(pasted.out()).contains("waiting_for_tools");
    assertThat(chat.out()).isEmpty();

    CliHarness listed = CliHarness.run("runs", "list", "--store", url);
    assertThat(listed.status).as(listed.err()).isZero();
    assertThat(listed.out()).contains("waiting_for_tools").contains("calculator");
  }

  @Test
  void aMessageWrittenWithNoWaitIsAnsweredByARunnerServingTheAgents() throws Exception {
    String schema = TestPostgres.freshSchema();
    String url = TestPostgres.storeUrl(schema);
    CliHarness submitted = CliHarness.run("chat", "--store", url, "--no-wait", "What is 17 * 23?");
    assertThat(submitted.status).as(submitted.err()).isZero();
    String runId = submitted.out().strip();
    assertThat(runId).matches("[0-9a-f-]{36}");

    java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
    try (dev.rcrt.postgres.PostgresBreadcrumbStore store = dev.rcrt.postgres.PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
            .schema(schema).build();
        dev.rcrt.core.Subscription answers = store.subscribe(dev.rcrt.core.Selector.allTags("agent:response", "run:" + runId),
            e -> answered.countDown())) {
      Process runner = runner(url);
      try {
        assertThat(answered.await(60, TimeUnit.SECONDS)).as("the runner answered the run").isTrue();
      } finally {
        runner.destroyForcibly();
      }
    }
    CliHarness shown = CliHarness.run("runs", "show", runId, "--store", url);
    assertThat(shown.out()).contains("status   done").contains("391").contains("tool.request.v1").contains("agent.response.v1");
    CliHarness unknown = CliHarness.run("runs", "show", "no-such-run", "--store", url);
    assertThat(unknown.status).isEqualTo(1);
    assertThat(unknown.err()).contains("no run 'no-such-run'");
  }

  /** A JavaScript tool that asks how many people before it books. */
  private static final String BOOK_TABLE = """
      [{"schema_name":"tool.code.v1","title":"Book a table","context":{"name":"book-table","description":"Book a table; asks how many people",
        "input_schema":{"type":"object","properties":{"restaurant":{"type":"string"}},"required":["restaurant"]},
        "code":{"language":"javascript","source":"export async function execute(input, context) { const a = await context.elicit('For how many people at ' + input.restaurant + '?', {type: 'object', properties: {people: {type: 'integer', minimum: 1}}, required: ['people']}); return a.action === 'accept' ? {booked: true, people: a.content.people} : {booked: false, said: a.action}; }"}}}]
      """;

  /** The model: a call of book-table for Chez Ada, then, once called, "Your table is booked." */
  private static void bookingModel() {
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("book").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c1","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
              "tool_calls":[{"id":"call_1","type":"function","function":{"name":"book-table","arguments":"{\\"restaurant\\":\\"Chez Ada\\"}"}}]}}]}"""))
        .willSetStateTo("called"));
    model.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("book").whenScenarioStateIs("called")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("""
            {"id":"c2","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Your table is booked."}}]}""")));
  }

  @Test
  void aToolsQuestionInAChatWithoutATerminalOnTheInMemoryStoreIsAnsweredCancel() throws Exception {
    Path tools = logs.resolve("book.json");
    java.nio.file.Files.writeString(tools, BOOK_TABLE);
    bookingModel();
    Path trail = logs.resolve("trail.jsonl");
    CliHarness chat = CliHarness.run("chat", "--breadcrumbs", tools.toString(), "--base-url", model.baseUrl() + "/v1", "--model", "m",
        "--dump", trail.toString(), "Book Chez Ada");
    assertThat(chat.status).as(chat.err()).isZero();
    assertThat(chat.err()).contains("nobody can answer 'book-table''s question on the in-memory store without a terminal");
    assertThat(chat.out()).contains("Your table is booked.");
    String records = java.nio.file.Files.readString(trail);
    assertThat(records).contains("input.request.v1").contains("\"action\":\"cancel\"").contains("\"said\":\"cancel\"");
  }

  @Test
  void aToolsQuestionInAChatOnPostgresWaitsThroughAKillAndRunsAnswerLetsTheRunFinish() throws Exception {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    Path tools = logs.resolve("book.json");
    java.nio.file.Files.writeString(tools, BOOK_TABLE);
    bookingModel();

    Path log = logs.resolve("chat.log");
    Process chat = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "chat", "--store", url, "--breadcrumbs", tools.toString(),
        "--base-url", model.baseUrl() + "/v1", "--model", "m", "Book Chez Ada"), log);
    LogWaits.until(log, "waiting for input to 'book-table'", chat, Duration.ofSeconds(90));
    chat.destroyForcibly(); // every process of the run is gone: the question is a record
    chat.waitFor();
    java.util.regex.Matcher hint = java.util.regex.Pattern.compile("runs answer (\\S+) (\\S+) '").matcher(java.nio.file.Files.readString(log));
    assertThat(hint.find()).as(java.nio.file.Files.readString(log)).isTrue();
    String runId = hint.group(1);
    String call = hint.group(2);

    CliHarness listed = CliHarness.run("runs", "list", "--store", url, "--status", "waiting_for_input");
    assertThat(listed.out()).contains(runId).contains("input for book-table");
    CliHarness shown = CliHarness.run("runs", "show", runId, "--store", url);
    assertThat(shown.out()).contains("status   waiting_for_input").contains("waits    input for book-table: For how many people at Chez Ada?")
        .contains("\"people\"");

    CliHarness wrong = CliHarness.run("runs", "answer", runId, call, "{\"people\": \"four\"}", "--store", url);
    assertThat(wrong.status).as(wrong.err()).isEqualTo(1);
    assertThat(wrong.err()).contains("does not fit").contains("people");
    CliHarness answered = CliHarness.run("runs", "answer", runId, call, "{\"people\": 4}", "--store", url);
    assertThat(answered.status).as(answered.err()).isZero();

    CliHarness resumed = CliHarness.run("runs", "resume", runId, "--store", url, "--base-url", model.baseUrl() + "/v1", "--model", "m");
    assertThat(resumed.status).as(resumed.err()).isZero();
    assertThat(resumed.out()).contains("Your table is booked.");
    CliHarness done = CliHarness.run("runs", "show", runId, "--store", url);
    assertThat(done.out()).contains("status   done").contains("input.request.v1").contains("input.response.v1");
    CliHarness responses = CliHarness.run("search", "--selector", "{\"schema_name\":\"tool.response.v1\"}", "--store", url);
    assertThat(responses.out()).contains("\"booked\":true").contains("\"people\":4").doesNotContain("\"status\":\"error\"");
  }

  @Test
  void runsApproveOnACallWhoseApprovalExpiredExitsOneNamingTheExpiryAndRecordsNothing() throws Exception {
    String schema = TestPostgres.freshSchema();
    String url = TestPostgres.storeUrl(schema);
    // the run was asked two days ago and its approval ran out an hour later: its processes ran on a clock two days behind this one
    TestClock past = new TestClock(Instant.now().minus(Duration.ofDays(2)));
    String runId;
    String call;
    Instant expiry;
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(TestPostgres.dataSource())
        .schema(schema).clock(past).build()) {
      BuiltinTools.seed(store);
      AgentDefinition agent = AgentDefinition.fromBreadcrumb(store.create(AgentDefinition.defaultChatAgent()));
      store.create(BreadcrumbCreate.builder("tool.definition.v1", "wire")
          .context(RcrtJson.parse("{\"name\":\"wire-money\",\"requires_approval\":true}")).build());
      ScriptedLlmClient llm = ScriptedLlmClient.replying(ChatResponse.toolCalls(
          new ToolCall("c1", "wire-money", "{\"to\":\"bob\"}")));
      try (ToolRunner tools = ToolRunner.builder(store).timeSource(past).approvalExpiry(Duration.ofHours(1))
              .handler("wire-money", (in, ctx) -> { throw new AssertionError("an unapproved call ran"); }).build();
          AgentExecutor asking = AgentExecutor.builder(llm, tools).agent(agent).build()) {
        asking.askAsync("s1", "pay bob");
        Runs runs = new Runs(store, ToolTrustPolicy.defaults(), past);
        assertThat(StoreWaits.until(store, () -> !runs.list(5, Run.Status.WAITING_FOR_APPROVAL).isEmpty(), Duration.ofSeconds(60)))
            .as("the call asked for approval").isTrue();
        Run run = runs.list(5, Run.Status.WAITING_FOR_APPROVAL).get(0);
        runId = run.id();
        call = run.pending().get(0).requestId();
        expiry = run.pending().get(0).approval().expiresAt();
      }
    }

    CliHarness approve = CliHarness.run("runs", "approve", runId, call, "--store", url, "--reason", "too late");
    assertThat(approve.status).as(approve.err()).isEqualTo(1);
    assertThat(approve.err()).contains("expired at " + expiry).contains(call).contains("wire-money");
    assertThat(approve.out()).isEmpty();
    CliHarness decisions = CliHarness.run("search", "--selector", "{\"schema_name\":\"approval.decision.v1\"}", "--store", url);
    assertThat(decisions.status).as(decisions.err()).isZero();
    assertThat(decisions.out()).as("no decision was recorded").isEmpty();
  }

  @Test
  void commandsThatOnlyReadWriteNothingIntoASharedStore() {
    String url = TestPostgres.storeUrl(TestPostgres.freshSchema());
    for (String[] reading : List.of(new String[] {"runs", "list"}, new String[] {"tools", "list"}, new String[] {"search", "--selector", "{}"})) {
      String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(reading), java.util.stream.Stream.of("--store", url)).toArray(String[]::new);
      CliHarness run = CliHarness.run(args);
      assertThat(run.status).as(String.join(" ", reading) + ": " + run.err()).isZero();
    }
    CliHarness all = CliHarness.run("search", "--selector", "{}", "--store", url);
    assertThat(all.out()).as("no bundled tool or agent was written by a command that only reads").isEmpty();
  }

  @Test
  void noWaitNeedsAStoreOtherProcessesShare() {
    CliHarness chat = CliHarness.run("chat", "--no-wait", "hello");
    assertThat(chat.status).isEqualTo(2);
    assertThat(chat.err()).contains("--no-wait needs a store other processes share");
  }

  private Process runner(String url) throws Exception {
    Path log = logs.resolve("runner.log");
    Process p = TestJvm.start(List.of(), List.of("dev.rcrt.cli.Main", "runner", "--store", url, "--agents", "--lease", "1000"), log);
    LogWaits.until(log, "runner listening on", p, Duration.ofSeconds(60));
    return p;
  }
}

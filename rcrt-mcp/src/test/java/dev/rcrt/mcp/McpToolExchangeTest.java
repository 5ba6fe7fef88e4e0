package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A tool talks back to the MCP client that called it: progress, log messages, sampling and elicitation. */
class McpToolExchangeTest {
  private static final String SEAT = "{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"string\",\"enum\":[\"aisle\",\"window\"],\"default\":\"aisle\"}}}";
  private final CountDownLatch never = new CountDownLatch(1);
  private final CountDownLatch heard = new CountDownLatch(1);
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private McpToolServer server;
  private McpSyncClient client;

  @BeforeEach
  void start() {
    store = new InMemoryBreadcrumbStore();
    define("{\"name\":\"booker\"}");
    define("{\"name\":\"asker\",\"limits\":{\"timeout_ms\":1500}}");
    define("{\"name\":\"seat\"}");
    define("{\"name\":\"stepper\"}");
    runner = ToolRunner.builder(store)
        .handler("booker", (in, ctx) -> {
          ctx.progress(1, 2.0, "asking the model");
          ctx.log(ToolExchange.LogLevel.INFO, "booking for " + in.path("guest").asText());
          ToolExchange.Sampled date = ctx.sample(new ToolExchange.Sampling(
              List.of(new ToolExchange.SamplingMessage("user", "Suggest a date")), "Answer with a date only", 20));
          ToolExchange.Elicited seat = ctx.elicit(new ToolExchange.Elicitation("Which seat?",
              RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"string\",\"enum\":[\"aisle\",\"window\"],\"default\":\"aisle\"}}}")));
          ctx.progress(2, 2.0, "booked");
          return RcrtJson.object().put("date", date.text()).put("model", date.model()).put("action", seat.action().wire())
              .put("seat", seat.content() == null ? null : seat.content().path("seat").asText());
        })
        .handler("asker", (in, ctx) -> RcrtJson.object().put("said", ctx.sample(ToolExchange.Sampling.of("hello?", 5)).text()))
        .handler("stepper", (in, ctx) -> {
          ctx.progress(1, 3.0, "step one");
          try { // until the importing side heard it: a notification is not ordered with the call's result
            heard.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return RcrtJson.object().put("steps", 1);
        })
        .handler("seat", (in, ctx) -> {
          ToolExchange.Elicited seat = ctx.elicit(new ToolExchange.Elicitation("Which seat?", RcrtJson.parse(SEAT)));
          return RcrtJson.object().put("action", seat.action().wire()).put("seat", seat.content() == null ? "" : seat.content().path("seat").asText());
        })
        .build();
    server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
  }

  private void define(String context) {
    store.create(BreadcrumbCreate.builder("tool.definition.v1", "tool").context(RcrtJson.parse(context)).build());
  }

  @AfterEach
  void stop() {
    never.countDown();
    if (client != null) {
      client.closeGracefully();
    }
    server.close();
    runner.close();
  }

  @Test
  void aToolReportsProgressAndLogsAndAsksTheClientsModelAndUser() throws Exception {
    BlockingQueue<McpSchema.LoggingMessageNotification> logs = new LinkedBlockingQueue<>();
    BlockingQueue<McpSchema.ProgressNotification> progress = new LinkedBlockingQueue<>();
    BlockingQueue<McpSchema.CreateMessageRequest> samplings = new LinkedBlockingQueue<>();
    BlockingQueue<McpSchema.ElicitFormRequest> elicitations = new LinkedBlockingQueue<>();
    client = TestClients.connect(server, "booking-client", spec -> spec
        .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().build())
        .sampling(request -> {
          samplings.add(request);
          return McpSchema.CreateMessageResult.builder(McpSchema.Role.ASSISTANT, "2026-12-24", "client-model").build();
        })
        .elicitation(request -> {
          elicitations.add(request);
          return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("seat", "window"));
        })
        .loggingConsumer(logs::add).progressConsumer(progress::add));
    client.setLoggingLevel(McpSchema.LoggingLevel.INFO);

    McpSchema.CallToolResult r = client.callTool(
        McpSchema.CallToolRequest.builder("booker").arguments(Map.of("guest", "Ada")).meta(Map.of("progressToken", "p7")).build());

    assertThat(r.isError()).as(r.toString()).isFalse();
    assertThat(r.structuredContent()).isEqualTo(Map.of("date", "2026-12-24", "model", "client-model", "action", "accept", "seat", "window"));
    McpSchema.CreateMessageRequest asked = samplings.poll(10, TimeUnit.SECONDS);
    assertThat(asked.systemPrompt()).isEqualTo("Answer with a date only");
    assertThat(asked.maxTokens()).isEqualTo(20);
    assertThat(((McpSchema.TextContent) asked.messages().get(0).content()).text()).isEqualTo("Suggest a date");
    McpSchema.ElicitFormRequest form = elicitations.poll(10, TimeUnit.SECONDS);
    assertThat(form.message()).isEqualTo("Which seat?");
    assertThat(RcrtJson.toTree(form.requestedSchema()).at("/properties/seat/default").asText()).isEqualTo("aisle");

    McpSchema.LoggingMessageNotification log = logs.poll(10, TimeUnit.SECONDS);
    while (log != null && !"tool:booker".equals(log.logger())) {
      log = logs.poll(10, TimeUnit.SECONDS);
    }
    assertThat(log).isNotNull();
    assertThat(log.data()).isEqualTo("booking for Ada");
    assertThat(log.level()).isEqualTo(McpSchema.LoggingLevel.INFO);
    List<Double> values = new java.util.ArrayList<>();
    while (values.size() < 3) {
      McpSchema.ProgressNotification p = progress.poll(10, TimeUnit.SECONDS);
      assertThat(p).as("progress notification %d", values.size() + 1).isNotNull();
      assertThat(p.progressToken()).isEqualTo("p7");
      values.add(p.progress());
    }
    // the server sends them in this order, but the MCP Java SDK's sync client hands each notification to a
    // worker of its own (McpClientFeatures.Async.fromSync: subscribeOn(boundedElastic)), so they may arrive in any
    assertThat(values).containsExactlyInAnyOrder(0.0, 1.0, 2.0);
  }

  @Test
  void theSdksClientSessionAnswersAServersElicitationAndFillsTheDefaultsItLeftOut() {
    McpServerAddress address = McpServerAddress.parse(server.uri().toString());
    try (McpClientSession answering = McpClientSession.connect(address, java.time.Duration.ofSeconds(20), java.util.Set.of(), t -> {},
        request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of()))) {
      McpSchema.CallToolResult r = answering.call("seat", Map.of());
      assertThat(r.structuredContent()).isEqualTo(Map.of("action", "accept", "seat", "aisle"));
    }
    try (McpClientSession silent = McpClientSession.connect(address, java.time.Duration.ofSeconds(20), t -> {})) {
      McpSchema.CallToolResult r = silent.call("seat", Map.of());
      assertThat(r.isError()).isTrue();
      assertThat(((McpSchema.TextContent) r.content().get(0)).text()).contains("which the MCP client 'rcrt' did not declare").endsWith("[tool_unsupported]");
    }
  }

  @Test
  void theProgressOfAnImportedServersToolIsTheCallsOwn() {
    InMemoryBreadcrumbStore local = new InMemoryBreadcrumbStore();
    local.create(BreadcrumbCreate.builder("tool.definition.v1", "remote stepper").context(RcrtJson.parse(
        "{\"name\":\"remote-stepper\",\"implementation\":{\"type\":\"mcp\",\"server\":{\"url\":\"" + server.uri() + "\"},\"tool\":\"stepper\"}}"))
        .build());
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    ToolExchange listening = new ToolExchange() {
      @Override
      public void progress(double progress, Double total, String message) {
        seen.add(progress + "/" + total + " " + message);
        if (progress == 1) {
          heard.countDown();
        }
      }

      @Override
      public void log(LogLevel level, String message) {}

      @Override
      public Sampled sample(Sampling request) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Elicited elicit(Elicitation request) {
        throw new UnsupportedOperationException();
      }
    };
    try (ToolRunner importing = ToolRunner.builder(local).trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build()) {
      dev.rcrt.tools.ToolResponse r = importing.call(dev.rcrt.tools.ToolRequest.of("remote-stepper", RcrtJson.object(), "host"),
          dev.rcrt.tools.ToolCallOptions.host().withExchange(listening));
      assertThat(r.success()).as(r.error()).isTrue();
    }
    assertThat(seen).contains("1.0/3.0 step one");
  }

  @Test
  void anImportedServersSamplingAndElicitationAreAskedOfTheImportingCallsCaller() {
    InMemoryBreadcrumbStore local = new InMemoryBreadcrumbStore();
    local.create(BreadcrumbCreate.builder("tool.definition.v1", "remote booker").context(RcrtJson.parse(
        "{\"name\":\"remote-booker\",\"implementation\":{\"type\":\"mcp\",\"server\":{\"url\":\"" + server.uri() + "\"},\"tool\":\"booker\"}}"))
        .build());
    dev.rcrt.tools.testing.RecordingExchange caller = new dev.rcrt.tools.testing.RecordingExchange(); // answers "four" and {"name": "Ada"}
    try (ToolRunner importing = ToolRunner.builder(local).trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build()) {
      dev.rcrt.tools.ToolResponse r = importing.call(dev.rcrt.tools.ToolRequest.of("remote-booker", RcrtJson.object().put("guest", "Ada"), "host"),
          dev.rcrt.tools.ToolCallOptions.host().withExchange(caller));
      assertThat(r.success()).as(r.error()).isTrue();
      assertThat(r.output()).isEqualTo(RcrtJson.parse("{\"date\":\"four\",\"model\":\"test-model\",\"action\":\"accept\",\"seat\":\"aisle\"}"));
    }
    assertThat(caller.samplings).singleElement().satisfies(asked -> {
      assertThat(asked.systemPrompt()).isEqualTo("Answer with a date only");
      assertThat(asked.maxTokens()).isEqualTo(20);
      assertThat(asked.messages()).singleElement().satisfies(m -> assertThat(m.text()).isEqualTo("Suggest a date"));
    });
    assertThat(caller.elicitations).singleElement().satisfies(e -> {
      assertThat(e.message()).isEqualTo("Which seat?");
      assertThat(e.requestedSchema().at("/properties/seat/default").asText()).isEqualTo("aisle");
    });
  }

  @Test
  void anImportedServersQuestionWithNobodyToAnswerIsRefusedAndTheCallSaysSo() {
    InMemoryBreadcrumbStore local = new InMemoryBreadcrumbStore();
    local.create(BreadcrumbCreate.builder("tool.definition.v1", "remote seat").context(RcrtJson.parse(
        "{\"name\":\"remote-seat\",\"implementation\":{\"type\":\"mcp\",\"server\":{\"url\":\"" + server.uri() + "\"},\"tool\":\"seat\"}}"))
        .build());
    try (ToolRunner importing = ToolRunner.builder(local).trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build()) {
      dev.rcrt.tools.ToolResponse r = importing.call(dev.rcrt.tools.ToolRequest.of("remote-seat", RcrtJson.object(), "host"));
      assertThat(r.success()).isFalse();
      assertThat(r.error()).contains("reported an error").contains("its elicitation was not answered").contains("this caller offers none")
          .doesNotContain("Exception");
    }
  }

  @Test
  void aClientWithoutTheCapabilityGetsTheToolsRefusalAsAnErrorResult() {
    client = TestClients.connect(server, "plain-client", spec -> spec);
    McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("asker", Map.of()));
    assertThat(r.isError()).isTrue();
    assertThat(((McpSchema.TextContent) r.content().get(0)).text())
        .isEqualTo("tool 'asker' asked for sampling (sampling/createMessage), which the MCP client 'plain-client' did not declare in its capabilities"
            + " [tool_unsupported]");
  }

  @Test
  void aClientThatNeverAnswersLeavesTheToolToEndAtItsTimeLimit() {
    client = TestClients.connect(server, "silent-client", spec -> spec
        .capabilities(McpSchema.ClientCapabilities.builder().sampling().build())
        .sampling(request -> {
          try {
            never.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new IllegalStateException("released at the test's end");
        }));
    McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("asker", Map.of()));
    assertThat(r.isError()).isTrue();
    assertThat(((McpSchema.TextContent) r.content().get(0)).text()).endsWith("[tool_timeout]");
  }
}

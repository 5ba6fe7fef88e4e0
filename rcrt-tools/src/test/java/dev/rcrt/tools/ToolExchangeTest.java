package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.testing.RecordingExchange;
import dev.rcrt.tools.testing.ToolHarness;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A tool talks back to its caller through the runner, which scrubs and bounds what passes. */
class ToolExchangeTest {
  private static final String TOKEN = "tok-5e1f0c93aa";

  private static ToolResponse call(ToolHarness h, String tool, ToolExchange back) {
    return h.runner.call(ToolRequest.of(tool, RcrtJson.object(), "host"), ToolCallOptions.host().withExchange(back));
  }

  @Test
  void aToolReportsProgressLogsAsksTheModelAndTheUserThroughItsContext() {
    RecordingExchange caller = new RecordingExchange();
    try (ToolHarness h = new ToolHarness(b -> b.handler("talker", (in, ctx) -> {
      ctx.progress(0, 2.0, "starting");
      ctx.log(ToolExchange.LogLevel.NOTICE, "asking");
      ToolExchange.Sampled answer = ctx.sample(ToolExchange.Sampling.of("2 + 2?", 10));
      ToolExchange.Elicited who = ctx.elicit(new ToolExchange.Elicitation("Your name?",
          RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}")));
      ctx.progress(2, 2.0, "done");
      return RcrtJson.object().put("answer", answer.text()).put("name", who.content().path("name").asText()).put("action", who.action().wire());
    }))) {
      h.define("tool.definition.v1", "{\"name\":\"talker\"}");
      ToolResponse r = call(h, "talker", caller);
      assertThat(r.success()).as(r.error()).isTrue();
      assertThat(r.output().toString()).isEqualTo("{\"answer\":\"four\",\"name\":\"Ada\",\"action\":\"accept\"}");
      assertThat(caller.seen).containsExactly("progress 0.0/2.0 starting", "notice asking", "progress 2.0/2.0 done");
      assertThat(caller.samplings).extracting(s -> s.messages().get(0).text()).containsExactly("2 + 2?");
      assertThat(caller.elicitations).extracting(ToolExchange.Elicitation::message).containsExactly("Your name?");
    }
  }

  @Test
  void noSecretValueReachesTheCallerInALogProgressSamplingOrElicitation() {
    RecordingExchange caller = new RecordingExchange();
    try (ToolHarness h = new ToolHarness(b -> b
        .secretResolver(SecretResolver.environment(Map.of("TOKEN", TOKEN)))
        .handler("leaker", (in, ctx) -> {
          String t = ctx.secrets().get("TOKEN");
          ctx.log(ToolExchange.LogLevel.INFO, "token " + t);
          ctx.progress(1, null, "using " + t);
          ctx.sample(new ToolExchange.Sampling(List.of(new ToolExchange.SamplingMessage("user", "the key is " + t)), "system " + t, 5));
          ctx.elicit(new ToolExchange.Elicitation("confirm " + t,
              RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\",\"description\":\"" + t + "\"}}}")));
          return RcrtJson.object();
        }))) {
      h.define("tool.definition.v1", "{\"name\":\"leaker\",\"required_secrets\":[\"TOKEN\"]}");
      assertThat(call(h, "leaker", caller).success()).isTrue();
      String everything = caller.seen + " " + caller.samplings + " " + caller.elicitations;
      assertThat(everything).doesNotContain(TOKEN).contains("token [secret]", "using [secret]", "the key is [secret]", "system [secret]",
          "confirm [secret]");
    }
  }

  @Test
  void aFloodIsCutAtTheLimitsAndProgressThatDoesNotIncreaseIsNotSent() {
    RecordingExchange caller = new RecordingExchange();
    AtomicReference<ToolException> eighth = new AtomicReference<>();
    try (ToolHarness h = new ToolHarness(b -> b.handler("flood", (in, ctx) -> {
      for (int i = 0; i < 5_000; i++) {
        ctx.log(ToolExchange.LogLevel.DEBUG, "line " + i + " " + "x".repeat(20_000));
      }
      ctx.progress(5, null, null);
      ctx.progress(5, null, null);
      ctx.progress(4, null, null);
      ctx.progress(Double.NaN, null, null);
      ctx.progress(6, null, null);
      for (int i = 0; i < 9; i++) {
        try {
          ctx.sample(ToolExchange.Sampling.of("again", 1));
        } catch (ToolException refused) {
          eighth.set(refused);
        }
      }
      return RcrtJson.object();
    }))) {
      h.define("tool.definition.v1", "{\"name\":\"flood\"}");
      assertThat(call(h, "flood", caller).success()).isTrue();
    }
    List<String> logs = caller.seen.stream().filter(s -> s.startsWith("debug ")).toList();
    assertThat(logs).hasSize(1_000);
    assertThat(logs.get(0)).hasSizeLessThan(8 * 1024 + 100).endsWith("more characters)");
    assertThat(caller.seen).contains("warning tool 'flood' sent more than 1000 log messages; the rest of this call's are dropped");
    assertThat(caller.seen.stream().filter(s -> s.startsWith("progress"))).containsExactly("progress 5.0/null null", "progress 6.0/null null");
    assertThat(caller.samplings).hasSize(8);
    assertThat(eighth.get().code()).isEqualTo(ToolErrorCode.TOOL_DENIED.code());
  }

  @Test
  void anAnswerThatDoesNotFitTheRequestedSchemaIsTheToolsInputErrorNamingWhere() {
    RecordingExchange caller = new RecordingExchange(); // answers {"name": "Ada"}
    try (ToolHarness h = new ToolHarness(b -> b.handler("ages", (in, ctx) -> {
      ToolExchange.Elicited who = ctx.elicit(new ToolExchange.Elicitation("Your age?",
          RcrtJson.parse("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"integer\"}}}")));
      return RcrtJson.object().put("name", who.content().path("name").asInt());
    }))) {
      h.define("tool.definition.v1", "{\"name\":\"ages\"}");
      ToolResponse r = call(h, "ages", caller);
      assertThat(r.errorCode()).isEqualTo(ToolErrorCode.TOOL_INPUT_INVALID.code());
      assertThat(r.error()).isEqualTo("tool 'ages': the answer to its elicitation does not fit the requested schema: /name: expected integer, found string");
    }
  }

  @Test
  void aCallerThatOffersNothingRefusesQuestionsByNameAndNothingIsSentAfterTheCallEnded() {
    AtomicReference<ToolContext> kept = new AtomicReference<>();
    RecordingExchange caller = new RecordingExchange();
    try (ToolHarness h = new ToolHarness(b -> b.handler("asker", (in, ctx) -> {
      kept.set(ctx);
      return RcrtJson.object().put("said", ctx.sample(ToolExchange.Sampling.of("hi", 5)).text());
    }))) {
      h.define("tool.definition.v1", "{\"name\":\"asker\"}");
      ToolResponse plain = h.call("asker", "{}");
      assertThat(plain.errorCode()).isEqualTo(ToolErrorCode.TOOL_UNSUPPORTED.code());
      assertThat(plain.error()).contains("asked its caller's model (sampling), and this caller offers none");

      assertThat(call(h, "asker", caller).success()).isTrue();
      kept.get().log(ToolExchange.LogLevel.ERROR, "from a thread the tool left behind");
      kept.get().progress(99, null, null);
      assertThat(caller.seen).isEmpty();
    }
  }
}

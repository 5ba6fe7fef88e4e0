package dev.rcrt.llm;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.junit5.WireMockExtension;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.rcrt.core.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class StreamingAndRetryTest {
  @RegisterExtension
  static WireMockExtension server = WireMockExtension.newInstance().options(wireMockConfig().dynamicPort()).build();

  private final List<Duration> slept = new ArrayList<>();
  private final Clock clock = Clock.fixed(Instant.parse("2026-11-21T00:00:00Z"), ZoneOffset.UTC);

  /** Real time, except that it remembers each retry's wait and never waits: the client sleeps only between retries. */
  private final TimeSource waits = new TimeSource() {
    @Override
    public java.time.Instant instant() {
      return java.time.Instant.now();
    }

    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public Timer schedule(Duration delay, Runnable task) {
      return TimeSource.system().schedule(delay, task); // the deadlines of reading a body or a stream
    }

    @Override
    public void sleep(Duration duration) {
      slept.add(duration);
    }
  };

  private OpenAiCompatibleLlmClient client() {
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k").timeSource(waits).clock(clock).build();
  }

  private static ChatRequest request() {
    return ChatRequest.of("m", List.of(ChatMessage.user("hi")));
  }

  private static void sse(String body) {
    server.stubFor(post(urlEqualTo("/v1/chat/completions"))
        .willReturn(aResponse().withHeader("Content-Type", "text/event-stream").withBody(body)));
  }

  @Test
  void streamedTextReachesTheListenerAsItArrivesAndTheUsageChunkIsRead() {
    sse("""
        : OPENROUTER PROCESSING

        data: {"id":"1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"17 × 23"},"finish_reason":null}]}

        : OPENROUTER PROCESSING

        data: {"id":"1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" = 391"},"finish_reason":null}]}

        data: {"id":"1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

        data: {"id":"1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}

        data: [DONE]

        """);
    List<String> tokens = new ArrayList<>();
    ChatResponse r = client().chat(request(), tokens::add);

    assertThat(tokens).containsExactly("17 × 23", " = 391");
    assertThat(r.message().content()).isEqualTo("17 × 23 = 391");
    assertThat(r.finishReason()).isEqualTo("stop");
    assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(9, 4, 13));
    server.verify(postRequestedFor(urlEqualTo("/v1/chat/completions"))
        .withRequestBody(matchingJsonPath("$.stream", com.github.tomakehurst.wiremock.client.WireMock.equalTo("true")))
        .withRequestBody(matchingJsonPath("$.stream_options.include_usage", com.github.tomakehurst.wiremock.client.WireMock.equalTo("true"))));
  }

  @Test
  void twoInterleavedToolCallsAreAssembledByIndexFromArgumentFragments() {
    sse("""
        data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"calculator","arguments":""}}]}}]}

        data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"random","arguments":"{\\"mi"}}]}}]}

        data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"expres"}}]}}]}

        data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"n\\":1,\\"max\\":6}"}}]}}]}

        data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"sion\\":\\"2+2\\"}"}}]}}]}

        data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

        data: [DONE]

        """);
    ChatResponse r = client().chat(request(), t -> {});
    assertThat(r.message().content()).isNull();
    assertThat(r.message().toolCalls()).containsExactly(
        new ToolCall("call_a", "calculator", "{\"expression\":\"2+2\"}"),
        new ToolCall("call_b", "random", "{\"min\":1,\"max\":6}"));
    assertThat(r.finishReason()).isEqualTo("tool_calls");
  }

  @Test
  void dataSpreadOverSeveralLinesIsJoinedWithNewlines() {
    sse("data: {\"choices\":[{\"index\":0,\n"
        + "data: \"delta\":{\"content\":\"joined\"}}]}\n\n"
        + "data: [DONE]\n\n");
    assertThat(client().chat(request(), t -> {}).message().content()).isEqualTo("joined");
  }

  @Test
  void anErrorObjectMidStreamIsATypedErrorAndIsNotRetriedOnceTextWasShown() {
    sse("""
        data: {"choices":[{"index":0,"delta":{"content":"Partial"}}]}

        data: {"error":{"message":"Upstream provider overloaded","code":502}}

        """);
    List<String> tokens = new ArrayList<>();
    assertThatThrownBy(() -> client().chat(request(), tokens::add))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_provider_error");
          assertThat(e.providerMessage()).isEqualTo("Upstream provider overloaded");
          assertThat(e.isRetriable()).isFalse();
        });
    assertThat(tokens).containsExactly("Partial");
    server.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void aNonStreamingAnswerToAStreamingRequestStillReachesTheListener() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "application/json")
        .withBody("{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"whole\"}}]}")));
    List<String> tokens = new ArrayList<>();
    assertThat(client().chat(request(), tokens::add).message().content()).isEqualTo("whole");
    assertThat(tokens).containsExactly("whole");
  }

  private void failThenSucceed(int status, String retryAfter) {
    var failure = aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody("{\"error\":{\"message\":\"busy\"}}");
    if (retryAfter != null) {
      failure = failure.withHeader("Retry-After", retryAfter);
    }
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("r").whenScenarioStateIs(Scenario.STARTED)
        .willReturn(failure).willSetStateTo("ok"));
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).inScenario("r").whenScenarioStateIs("ok")
        .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody("{\"choices\":[{\"message\":{\"content\":\"done\"}}]}")));
  }

  @Test
  void a429IsRetriedAfterTheRetryAfterSecondsThenSucceeds() {
    failThenSucceed(429, "7");
    assertThat(client().chat(request()).message().content()).isEqualTo("done");
    assertThat(slept).containsExactly(Duration.ofSeconds(7));
    server.verify(2, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void aRetryAfterDateIsHonouredToo() {
    failThenSucceed(429, "Sat, 21 Nov 2026 00:00:03 GMT");
    client().chat(request());
    assertThat(slept).containsExactly(Duration.ofSeconds(3));
  }

  @Test
  void a503IsRetriedWithExponentialBackoffThenSucceeds() {
    failThenSucceed(503, null);
    assertThat(client().chat(request()).message().content()).isEqualTo("done");
    assertThat(slept).containsExactly(Duration.ofMillis(500));
  }

  @Test
  void persistentServerErrorsStopAfterTheRetryLimitWithGrowingWaits() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withStatus(500).withBody("oops")));
    assertThatThrownBy(() -> client().chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.status()).isEqualTo(500));
    assertThat(slept).containsExactly(Duration.ofMillis(500), Duration.ofMillis(1000));
    server.verify(3, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void a400IsNotRetried() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withStatus(400).withBody("{\"error\":{\"message\":\"bad request\"}}")));
    assertThatThrownBy(() -> client().chat(request())).isInstanceOfSatisfying(LlmException.class, e -> {
      assertThat(e.status()).isEqualTo(400);
      assertThat(e.isRetriable()).isFalse();
    });
    assertThat(slept).isEmpty();
    server.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void aHugeRetryAfterIsCappedAtTheMaximumBackoff() {
    failThenSucceed(429, "86400");
    client().chat(request());
    assertThat(slept).containsExactly(Duration.ofSeconds(20));
  }


  // ------------------------------------------------------------------ limits on what the endpoint sends

  private OpenAiCompatibleLlmClient limited(Duration request, Duration idle, long maxBytes) {
    return OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k").maxRetries(0)
        .requestTimeout(request).streamTimeouts(idle, Duration.ofSeconds(30)).maxResponseBytes(maxBytes).build();
  }

  @Test
  void aStreamOfOnlyKeepAliveCommentsTimesOutWithAClearMessage() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/event-stream")
        .withBody(": keep-alive\n\n".repeat(200)).withChunkedDribbleDelay(200, 20_000)));
    assertThatThrownBy(() -> limited(Duration.ofSeconds(5), Duration.ofMillis(300), 1_000_000).chat(request(), t -> {}))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_timeout");
          assertThat(e.getMessage()).endsWith("sent no event for 300 ms (keep-alive comments do not count); it was closed");
        });
  }

  /** Time that moves only when the test says: the stream's idle limit passes without waiting for it. */
  private static final class ManualTime implements TimeSource {
    private long now;
    private final List<Object[]> timers = new ArrayList<>(); // {due, task, cancelled[]}

    @Override
    public synchronized java.time.Instant instant() {
      return java.time.Instant.EPOCH.plusNanos(now);
    }

    @Override
    public synchronized long nanoTime() {
      return now;
    }

    @Override
    public synchronized Timer schedule(Duration delay, Runnable task) {
      boolean[] cancelled = {false};
      timers.add(new Object[] {now + delay.toNanos(), task, cancelled});
      notifyAll(); // for awaitPending
      return () -> {
        synchronized (ManualTime.this) {
          boolean was = !cancelled[0];
          cancelled[0] = true;
          return was;
        }
      };
    }

    @Override
    public void sleep(Duration duration) {
      advance(duration);
    }

    synchronized int pending() {
      return (int) timers.stream().filter(t -> !((boolean[]) t[2])[0]).count();
    }

    /** Whether a timer is pending within {@code within} of real time: waits to be told of each timer set, polls nothing. */
    synchronized boolean awaitPending(Duration within) throws InterruptedException {
      long end = System.nanoTime() + within.toNanos();
      for (long left; pending() == 0; ) {
        if ((left = end - System.nanoTime()) <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }

    void advance(Duration by) {
      List<Runnable> due = new ArrayList<>();
      synchronized (this) {
        now += by.toNanos();
        for (Object[] t : List.copyOf(timers)) {
          boolean[] cancelled = (boolean[]) t[2];
          if (!cancelled[0] && (long) t[0] <= now) {
            cancelled[0] = true;
            timers.remove(t);
            due.add((Runnable) t[1]);
          }
        }
      }
      due.forEach(Runnable::run);
    }
  }

  @Test
  void aKeepAliveOnlyStreamEndsAtTheIdleLimitOnTheClientsTimeSource() throws Exception {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/event-stream")
        .withBody(": keep-alive\n\n".repeat(200)).withChunkedDribbleDelay(200, 60_000)));
    ManualTime time = new ManualTime();
    OpenAiCompatibleLlmClient client = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k")
        .timeSource(time).streamTimeouts(Duration.ofSeconds(60), Duration.ofMinutes(10)).build();
    java.util.concurrent.CompletableFuture<ChatResponse> answer =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> client.chat(request(), t -> {}));
    // until the reader waits for the next event (slow on a loaded machine)
    assertThat(time.awaitPending(Duration.ofSeconds(60))).as("the reader waits for the next event on the client's time source").isTrue();
    assertThat(answer).isNotDone();
    // a minute of keep-alives, in no real time; once more if a keep-alive that arrived meanwhile armed the idle timer again
    for (int i = 0; i < 3 && !answer.isDone(); i++) {
      time.advance(Duration.ofSeconds(61));
      try {
        answer.get(5, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // ended (checked below), or not yet
      }
    }
    assertThatThrownBy(() -> answer.get(10, java.util.concurrent.TimeUnit.SECONDS))
        .hasCauseInstanceOf(LlmException.class)
        .satisfies(e -> {
          LlmException failure = (LlmException) e.getCause();
          assertThat(failure.code()).isEqualTo("llm_timeout");
          assertThat(failure.getMessage()).contains("sent no event for 60000 ms");
        });
    server.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void aStreamThatTimesOutIsNotSentAgainEvenWithRetriesAllowed() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/event-stream")
        .withBody(": keep-alive\n\n".repeat(200)).withChunkedDribbleDelay(200, 20_000)));
    OpenAiCompatibleLlmClient retrying = OpenAiCompatibleLlmClient.builder(server.baseUrl() + "/v1").apiKey("k").maxRetries(2)
        .streamTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)).build();
    assertThatThrownBy(() -> retrying.chat(request(), t -> {}))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.code()).isEqualTo("llm_timeout"));
    server.verify(1, postRequestedFor(urlEqualTo("/v1/chat/completions")));
  }

  @Test
  void aStreamThatEndsWithoutDoneOrAFinishReasonIsAnErrorNotAnEmptyAnswer() {
    sse("""
        data: {"id":"1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"The answer is"},"finish_reason":null}]}

        """);
    assertThatThrownBy(() -> limited(Duration.ofSeconds(5), Duration.ofSeconds(5), 1_000_000).chat(request(), t -> {}))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_bad_response");
          assertThat(e.getMessage()).endsWith("ended without [DONE] or a finish_reason, so the answer may be cut off");
        });
  }

  @Test
  void aBodyThatStallsIsCutOffAtTheRequestTimeout() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "application/json")
        .withBody("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + "x".repeat(300) + "\"}}]}")
        .withChunkedDribbleDelay(300, 30_000)));
    assertThatThrownBy(() -> limited(Duration.ofMillis(400), Duration.ofSeconds(5), 1_000_000).chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_timeout");
          assertThat(e.getMessage()).contains("did not send its whole answer within 400 ms");
        });
  }

  @Test
  void aLineOrBodyPastTheSizeCapIsAnErrorNeverBufferedWhole() {
    sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + "y".repeat(50_000) + "\"}}]}\n\ndata: [DONE]\n\n");
    assertThatThrownBy(() -> limited(Duration.ofSeconds(5), Duration.ofSeconds(5), 10_000).chat(request(), t -> {}))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).isEqualTo("llm_bad_response");
          assertThat(e.getMessage()).contains("the response is larger than 10000 bytes");
        });
  }

  @Test
  void onlyJsonIsReadAsACompletion() {
    server.stubFor(post(urlEqualTo("/v1/chat/completions")).willReturn(aResponse().withHeader("Content-Type", "text/html; charset=utf-8")
        .withBody("{\"choices\":[]}")));
    assertThatThrownBy(() -> limited(Duration.ofSeconds(5), Duration.ofSeconds(5), 10_000).chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> assertThat(e.getMessage()).contains("answered Content-Type 'text/html; charset=utf-8', expected application/json"));
  }
}

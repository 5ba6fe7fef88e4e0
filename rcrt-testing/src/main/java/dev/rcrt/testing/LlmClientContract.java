package dev.rcrt.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatOptions;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LlmClient} must have for an agent to run on it: text answers, native
 * tool calls, streaming (real or the whole text at once), errors as {@link LlmException}, calls
 * from several threads, and cancellation by interrupt. Extend it in a test of your client and
 * implement {@link #client(Scenario)}: make the provider behind the client (a WireMock server, a
 * scripted model, a local server) behave as the scenario says.
 *
 * <p>The cancellation test interrupts a call that hangs, once its provider says it received it
 * ({@link #hangingCallReceived()}), and waits at most {@link #cancelWaitSeconds()} for it to
 * return; that bound only keeps a broken client from hanging the build, it is not a speed
 * assertion.
 */
public abstract class LlmClientContract {

  /** The tool every request of the suite offers, as OpenAI {@code tools}. */
  public static final String TOOL_NAME = "calculator";

  /** What the provider behind the client does in one test. */
  public enum Scenario {
    /** Answers every request with the text {@code "391"}, {@code finish_reason: "stop"}. */
    TEXT,
    /**
     * Answers every request with one native tool call: function {@code calculator}, arguments
     * {@code {"expression": "17 * 23"}}, any non-blank id; streamed when the request streams.
     */
    TOOL_CALL,
    /**
     * Answers every request with the text {@code "Hello, world"}; a streamed request gets it in
     * two or more pieces.
     */
    STREAMED_TEXT,
    /** Refuses every request as the provider refuses a bad one (an HTTP 400 with an error message, say). */
    ERROR,
    /** Never answers: the call blocks until its thread is interrupted. */
    HANG
  }

  /** A client whose provider behaves as {@code scenario} says, for one test. */
  protected abstract LlmClient client(Scenario scenario);

  /** How long the cancellation test waits for an interrupted call to return; default 10 s. */
  protected long cancelWaitSeconds() {
    return 10;
  }

  private final CompletableFuture<Void> hangingCallReceived = new CompletableFuture<>();

  /**
   * Tells the cancellation test that the provider of {@link Scenario#HANG} has received the call:
   * call it from the provider (the scripted answer, the stub server's request listener), on any
   * thread, and return {@code true} from {@link #reportsHangingCall()}. The test then interrupts the
   * call only once it is under way, instead of at a guessed moment. Idempotent.
   */
  protected final void hangingCallReceived() {
    hangingCallReceived.complete(null);
  }

  /**
   * Whether this suite's {@link Scenario#HANG} provider calls {@link #hangingCallReceived()};
   * default false, for which the cancellation test interrupts the call as soon as its thread has
   * started (before the call may have reached the provider: a cancellation still, at another moment).
   */
  protected boolean reportsHangingCall() {
    return false;
  }

  /** The request the suite sends: one user question, the calculator tool offered. */
  protected ChatRequest request() {
    ArrayNode tools = RcrtJson.array();
    tools.add(RcrtJson.parse("""
        {"type":"function","function":{"name":"calculator","description":"Evaluates arithmetic.",
         "parameters":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}}"""));
    return new ChatRequest(
        "contract-model", List.of(ChatMessage.system("Answer briefly."), ChatMessage.user("What is 17 * 23?")), tools,
        ChatOptions.DEFAULTS);
  }

  @Test
  void answersWithText() {
    ChatResponse response = client(Scenario.TEXT).chat(request());

    assertThat(response.message().role()).isEqualTo("assistant");
    assertThat(response.message().content()).isEqualTo("391");
    assertThat(response.message().toolCalls()).isEmpty();
  }

  @Test
  void answersWithANativeToolCallWhoseArgumentsAreAJsonObject() {
    ChatResponse response = client(Scenario.TOOL_CALL).chat(request());

    assertThat(response.message().toolCalls()).hasSize(1);
    ToolCall call = response.message().toolCalls().get(0);
    assertThat(call.id()).isNotBlank();
    assertThat(call.name()).isEqualTo(TOOL_NAME);
    JsonNode arguments = RcrtJson.parse(call.arguments());
    assertThat(arguments.isObject()).as("arguments %s", call.arguments()).isTrue();
    assertThat(arguments.path("expression").asText()).isEqualTo("17 * 23");
    assertThat(response.message().content() == null || response.message().content().isBlank()).isTrue();
  }

  @Test
  void streamsTextToTheListenerAndReturnsTheSameText() {
    List<String> tokens = Collections.synchronizedList(new ArrayList<>());

    ChatResponse response = client(Scenario.STREAMED_TEXT).chat(request(), tokens::add);

    assertThat(response.message().content()).isEqualTo("Hello, world");
    assertThat(tokens).isNotEmpty().allSatisfy(t -> assertThat(t).isNotEmpty());
    assertThat(String.join("", tokens)).isEqualTo("Hello, world");
  }

  @Test
  void aStreamedToolCallArrivesWholeAndSendsNoTextToTheListener() {
    List<String> tokens = Collections.synchronizedList(new ArrayList<>());

    ChatResponse response = client(Scenario.TOOL_CALL).chat(request(), tokens::add);

    assertThat(response.message().toolCalls()).hasSize(1);
    assertThat(RcrtJson.parse(response.message().toolCalls().get(0).arguments()).path("expression").asText()).isEqualTo("17 * 23");
    assertThat(String.join("", tokens).isBlank()).as("text streamed for a tool call: %s", tokens).isTrue();
  }

  @Test
  void aTextAnswerReachesAStreamListenerEvenFromAClientThatCannotStream() {
    List<String> tokens = Collections.synchronizedList(new ArrayList<>());

    ChatResponse response = client(Scenario.TEXT).chat(request(), tokens::add);

    assertThat(String.join("", tokens)).isEqualTo(response.message().content()).isEqualTo("391");
  }

  @Test
  void aRefusedRequestIsAnLlmExceptionThatSaysWhat() {
    LlmClient client = client(Scenario.ERROR);

    assertThatThrownBy(() -> client.chat(request()))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.code()).startsWith("llm_");
          assertThat(e.getMessage()).isNotBlank();
        });
  }

  @Test
  void answersCallsFromSeveralThreadsAtOnce() throws Exception {
    LlmClient client = client(Scenario.TEXT);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<ChatResponse>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(pool.submit(() -> client.chat(request())));
      }
      for (Future<ChatResponse> answer : answers) {
        assertThat(answer.get(cancelWaitSeconds(), TimeUnit.SECONDS).message().content()).isEqualTo("391");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void interruptingAHangingCallEndsItWithAnLlmExceptionAndKeepsTheInterrupt() throws Exception {
    LlmClient client = client(Scenario.HANG);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        client.chat(request());
      } catch (Throwable t) {
        thrown.set(t);
      }
      stillInterrupted.complete(Thread.currentThread().isInterrupted());
    }, "llm-contract-caller");
    caller.setDaemon(true);
    caller.start();
    if (reportsHangingCall()) {
      assertThat(hangingCallReceived).as("the provider received the hanging call").succeedsWithin(Duration.ofSeconds(cancelWaitSeconds()));
    }

    caller.interrupt();

    assertThat(stillInterrupted.get(cancelWaitSeconds(), TimeUnit.SECONDS))
        .as("the interrupt status after the call returned").isTrue();
    assertThat(thrown.get()).as("what the interrupted call threw").isInstanceOf(LlmException.class);
  }
}

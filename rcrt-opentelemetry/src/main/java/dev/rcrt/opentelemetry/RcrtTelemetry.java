package dev.rcrt.opentelemetry;

import dev.rcrt.agent.AgentObserver;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.LlmException;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.opentelemetry.internal.GenAiContent;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolInterceptor;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Traces and metrics of the SDK after the OpenTelemetry GenAI semantic conventions, on the {@link
 * OpenTelemetry} instance the host configured (its SDK, exporters and sampling):
 *
 * <ul>
 *   <li>{@link #agentObserver()}: a span {@code invoke_agent {agent_id}} per turn
 *       ({@code gen_ai.operation.name}, {@code gen_ai.agent.name}, {@code gen_ai.conversation.id},
 *       {@code gen_ai.response.model}, token usage, {@code error.type}), current while the turn runs
 *       and carried to the threads that run its parallel tool calls;
 *   <li>{@link #instrument(LlmClient, String)}: a client span {@code chat {model}} per model call
 *       ({@code gen_ai.provider.name}, {@code gen_ai.request.model}, {@code
 *       gen_ai.request.temperature}, {@code gen_ai.request.max_tokens}, {@code
 *       gen_ai.response.model}, {@code gen_ai.response.finish_reasons}, {@code
 *       gen_ai.usage.input_tokens}/{@code output_tokens}, {@code error.type} = the {@link
 *       LlmException} code), and the metrics {@code gen_ai.client.operation.duration} (seconds) and
 *       {@code gen_ai.client.token.usage} ({@code gen_ai.token.type} input/output);
 *   <li>{@link #toolInterceptor()}: a span {@code execute_tool {tool}} per tool call ({@code
 *       gen_ai.tool.name}, {@code gen_ai.tool.call.id} for a model's call, {@code
 *       rcrt.tool.implementation}, {@code error.type} = the {@code ToolException} code), and the
 *       metric {@code rcrt.tool.call.duration} (seconds) by tool, implementation type and outcome;
 *   <li>{@link #observeVectorIndex}: the gauge {@code rcrt.vector_index.pending}, a store's lag in
 *       embedding what was written.
 * </ul>
 *
 * <p>By default no prompt, answer, tool input or output is recorded: only names, sizes, times and
 * codes. A host that wants the content on its spans opts in with {@link
 * Builder#captureContent(boolean)}: chat spans then carry {@code gen_ai.input.messages} and {@code
 * gen_ai.output.messages} (the conventions' JSON message shape), tool spans {@code
 * gen_ai.tool.call.arguments} and {@code gen_ai.tool.call.result} (the output, or the error
 * message). That content is what the breadcrumb trail records: tool arguments are scrubbed of
 * every secret value the runner knows ({@link ToolChain#scrub}), tool results and errors arrive
 * scrubbed, and chat content is scrubbed of the model client's own {@link LlmClient#secretValues()}
 * and, with {@link #instrument(LlmClient, String, ToolRunner)}, of the runner's secrets too (a model
 * that echoes a key into its tool-call arguments). Metrics never carry content. Otherwise what users
 * type and models answer is recorded as it is.
 *
 * <p>Thread-safe.
 */
public final class RcrtTelemetry {
  static final String SCOPE = "dev.rcrt";
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
  static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
  static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
  static final AttributeKey<Double> TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
  static final AttributeKey<Long> MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
  static final AttributeKey<List<String>> FINISH_REASONS = AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
  static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
  static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
  static final AttributeKey<String> TOKEN_TYPE = AttributeKey.stringKey("gen_ai.token.type");
  static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
  static final AttributeKey<String> CONVERSATION = AttributeKey.stringKey("gen_ai.conversation.id");
  static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
  static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
  static final AttributeKey<String> TOOL_IMPLEMENTATION = AttributeKey.stringKey("rcrt.tool.implementation");
  static final AttributeKey<String> TOOL_OUTCOME = AttributeKey.stringKey("rcrt.tool.outcome");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
  static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");
  static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
  static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
  static final AttributeKey<String> STORE = AttributeKey.stringKey("rcrt.store");

  private final Tracer tracer;
  private final DoubleHistogram operationDuration;
  private final LongHistogram tokenUsage;
  private final DoubleHistogram toolDuration;
  private final boolean captureContent;
  /** The secret scrubbing of each runner a tool interceptor of this telemetry sits on (it knows the runner's secrets, live). */
  private final List<UnaryOperator<String>> runnerScrubs = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Meter meter;

  private RcrtTelemetry(OpenTelemetry otel, boolean captureContent) {
    this.captureContent = captureContent;
    this.tracer = otel.getTracer(SCOPE, "0.1.0");
    this.meter = otel.getMeter(SCOPE);
    this.operationDuration = meter.histogramBuilder("gen_ai.client.operation.duration").setUnit("s")
        .setDescription("GenAI operation duration").build();
    this.tokenUsage = meter.histogramBuilder("gen_ai.client.token.usage").ofLongs().setUnit("{token}")
        .setDescription("Number of input and output tokens used").build();
    this.toolDuration = meter.histogramBuilder("rcrt.tool.call.duration").setUnit("s")
        .setDescription("Tool call duration, by tool, implementation type and outcome").build();
  }

  /**
   * Telemetry through {@code otel}, such as {@code GlobalOpenTelemetry.get()} or the host's SDK,
   * recording no content.
   */
  public static RcrtTelemetry create(OpenTelemetry otel) {
    return builder(otel).build();
  }

  /** A builder of telemetry through {@code otel}, to opt in to content. */
  public static Builder builder(OpenTelemetry otel) {
    return new Builder(Objects.requireNonNull(otel, "otel"));
  }

  /** Settings; not thread-safe. */
  public static final class Builder {
    private final OpenTelemetry otel;
    private boolean captureContent;

    private Builder(OpenTelemetry otel) {
      this.otel = otel;
    }

    /**
     * Whether spans carry the conversation and tool content (default false). Content can be large
     * and personal; turn it on where the trace backend may hold what the breadcrumb trail holds.
     */
    public Builder captureContent(boolean capture) {
      this.captureContent = capture;
      return this;
    }

    /** The telemetry, with what was set. */
    public RcrtTelemetry build() {
      return new RcrtTelemetry(otel, captureContent);
    }
  }

  /**
   * The lag of a store's search by meaning as the gauge {@code rcrt.vector_index.pending} ({@code
   * {record}}): how many written records wait to be embedded and indexed in this process ({@link
   * VectorSearch#pending()}), read at each collection, with the attribute {@code rcrt.store} =
   * {@code storeName}. A growing value means the embedding provider is failing or slower than the
   * writes (the store's log says which).
   *
   * @return closing it stops the gauge; the caller closes it with the store
   */
  public AutoCloseable observeVectorIndex(VectorSearch search, String storeName) {
    Objects.requireNonNull(search, "search");
    Attributes store = Attributes.of(STORE, Objects.requireNonNull(storeName, "storeName"));
    return meter.gaugeBuilder("rcrt.vector_index.pending").ofLongs().setUnit("{record}")
        .setDescription("Records written but not yet embedded and searchable by meaning in this process")
        .buildWithCallback(m -> m.record(search.pending(), store));
  }

  /**
   * A store's event delivery lag as the gauge {@code rcrt.store.event_delivery.lag} ({@code s}):
   * how long this process's delivery of the store's events has waited for a writer still in
   * progress ({@code PostgresBreadcrumbStore::eventDeliveryLag}), read at each collection, with the
   * attribute {@code rcrt.store} = {@code storeName}. Near zero normally; a value that keeps
   * growing means a stalled writer holds every later event back (the store's log names it).
   *
   * @param lag read at each collection, on the collecting thread; must be thread-safe and not block
   * @return closing it stops the gauge; the caller closes it with the store
   */
  public AutoCloseable observeEventDeliveryLag(java.util.function.Supplier<java.time.Duration> lag, String storeName) {
    Objects.requireNonNull(lag, "lag");
    Attributes store = Attributes.of(STORE, Objects.requireNonNull(storeName, "storeName"));
    return meter.gaugeBuilder("rcrt.store.event_delivery.lag").setUnit("s")
        .setDescription("How long delivery of a store's events in this process has waited for a writer still in progress")
        .buildWithCallback(m -> m.record(lag.get().toNanos() / 1e9, store));
  }

  /**
   * A runner's abandoned Java tool calls as the gauge {@code rcrt.tool.abandoned_calls} ({@code
   * {call}}): calls that passed their deadline, ended {@code tool_timeout} and still run because
   * their code ignores interruption ({@link ToolRunner#abandonedCalls()}), read at each collection.
   * Above zero, a tool's code spins; at the runner's limit it refuses further Java tool calls.
   *
   * @return closing it stops the gauge; the caller closes it with the runner
   */
  public AutoCloseable observeAbandonedToolCalls(ToolRunner runner) {
    Objects.requireNonNull(runner, "runner");
    return meter.gaugeBuilder("rcrt.tool.abandoned_calls").ofLongs().setUnit("{call}")
        .setDescription("Java tool calls past their deadline whose code still runs, ignoring interruption")
        .buildWithCallback(m -> m.record(runner.abandonedCalls()));
  }

  /** For {@code AgentExecutor.Builder.observer}: a span per turn. */
  public AgentObserver agentObserver() {
    return new AgentObserver() {
      @Override
      @SuppressWarnings("MustBeClosedChecker") // the scope spans the turn: the Turn the caller ends closes it, on this thread
      public Turn turnStarted(String agentId, String sessionId) {
        Span span = tracer.spanBuilder("invoke_agent " + agentId).setSpanKind(SpanKind.INTERNAL)
            .setAttribute(OPERATION, "invoke_agent").setAttribute(AGENT_NAME, agentId).setAttribute(CONVERSATION, sessionId).startSpan();
        Scope scope = span.makeCurrent();
        return (response, failure) -> {
          if (response != null) {
            if (response.model() != null) {
              span.setAttribute(RESPONSE_MODEL, response.model());
            }
            if (response.usage() != null) {
              span.setAttribute(INPUT_TOKENS, response.usage().promptTokens());
              span.setAttribute(OUTPUT_TOKENS, response.usage().completionTokens());
            }
            if (response.status() == AgentResponse.Status.ERROR && response.error() != null) {
              fail(span, response.error().code());
            }
          }
          if (failure != null) {
            fail(span, failure instanceof RcrtException r ? r.code() : failure.getClass().getName());
          }
          scope.close();
          span.end();
        };
      }

      @Override
      public <T> Callable<T> carry(Callable<T> task) {
        return Context.current().wrap(task);
      }
    };
  }

  /**
   * The OpenTelemetry GenAI {@code gen_ai.provider.name} of an OpenAI-compatible endpoint: {@code
   * openai}, {@code openrouter} or {@code azure.ai.openai} for their well-known hosts, else the
   * endpoint's host name ({@code openai} when it has none).
   */
  public static String providerName(java.net.URI endpoint) {
    String host = endpoint.getHost();
    if (host == null) {
      return "openai";
    }
    return host.endsWith("openai.com") ? "openai"
        : host.endsWith("openrouter.ai") ? "openrouter"
        : host.endsWith("azure.com") ? "azure.ai.openai"
        : host;
  }

  /**
   * {@code client} with a {@code chat} span and the GenAI client metrics around every call; content
   * (when captured) scrubbed of the client's own {@link LlmClient#secretValues()} and of every
   * secret value known to each runner this telemetry's {@link #toolInterceptor()} sits on (from that
   * runner's first call on), as {@link #instrument(LlmClient, String, ToolRunner)} scrubs of one.
   */
  public LlmClient instrument(LlmClient client, String providerName) {
    return instrument(client, providerName, text -> {
      String out = text;
      for (UnaryOperator<String> runner : runnerScrubs) {
        out = runner.apply(out);
      }
      return out;
    });
  }

  /**
   * {@link #instrument(LlmClient, String)}, with captured content also scrubbed of every secret
   * value {@code runner} knows, as the trail is: use it when the client serves an agent of that
   * runner.
   */
  public LlmClient instrument(LlmClient client, String providerName, ToolRunner runner) {
    Objects.requireNonNull(runner, "runner");
    return instrument(client, providerName, runner::scrub);
  }

  private LlmClient instrument(LlmClient client, String providerName, UnaryOperator<String> runnerScrub) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(providerName, "providerName");
    List<String> own = client.secretValues().stream().filter(v -> !v.isEmpty())
        .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    UnaryOperator<String> scrub = text -> {
      String out = runnerScrub.apply(text);
      for (String value : own) {
        out = out.replace(value, "[secret]");
      }
      return out;
    };
    return new LlmClient() {
      @Override
      public ChatResponse chat(ChatRequest request) {
        return traced(request, client::chat);
      }

      @Override
      public ChatResponse chat(ChatRequest request, StreamListener listener) {
        return traced(request, r -> client.chat(r, listener));
      }

      private ChatResponse traced(ChatRequest request, java.util.function.Function<ChatRequest, ChatResponse> send) {
        var builder = tracer.spanBuilder("chat " + request.model()).setSpanKind(SpanKind.CLIENT)
            .setAttribute(OPERATION, "chat").setAttribute(PROVIDER, providerName).setAttribute(REQUEST_MODEL, request.model());
        if (request.options().temperature() != null) {
          builder.setAttribute(TEMPERATURE, request.options().temperature());
        }
        if (request.options().maxTokens() != null) {
          builder.setAttribute(MAX_TOKENS, request.options().maxTokens().longValue());
        }
        if (captureContent) {
          builder.setAttribute(INPUT_MESSAGES, GenAiContent.input(request.messages(), scrub));
        }
        Span span = builder.startSpan();
        long start = System.nanoTime();
        AttributesBuilder metric = Attributes.builder().put(OPERATION, "chat").put(PROVIDER, providerName).put(REQUEST_MODEL, request.model());
        try (Scope ignored = span.makeCurrent()) {
          ChatResponse response = send.apply(request);
          if (response.model() != null) {
            span.setAttribute(RESPONSE_MODEL, response.model());
            metric.put(RESPONSE_MODEL, response.model());
          }
          if (response.finishReason() != null) {
            span.setAttribute(FINISH_REASONS, List.of(response.finishReason()));
          }
          if (captureContent) {
            span.setAttribute(OUTPUT_MESSAGES, GenAiContent.output(response, scrub));
          }
          if (response.usage() != null) {
            span.setAttribute(INPUT_TOKENS, response.usage().promptTokens());
            span.setAttribute(OUTPUT_TOKENS, response.usage().completionTokens());
            Attributes base = metric.build();
            tokenUsage.record(response.usage().promptTokens(), base.toBuilder().put(TOKEN_TYPE, "input").build());
            tokenUsage.record(response.usage().completionTokens(), base.toBuilder().put(TOKEN_TYPE, "output").build());
          }
          return response;
        } catch (RuntimeException e) {
          String type = e instanceof RcrtException r ? r.code() : e.getClass().getName();
          fail(span, type);
          metric.put(ERROR_TYPE, type);
          throw e;
        } finally {
          operationDuration.record((System.nanoTime() - start) / 1e9, metric.build());
          span.end();
        }
      }

      @Override
      public Optional<String> defaultModel() {
        return client.defaultModel();
      }

      @Override
      public java.util.Set<String> secretValues() {
        return client.secretValues();
      }
    };
  }

  /**
   * For {@code ToolRunner.Builder.addInterceptor}: an {@code execute_tool} span and the tool metric
   * per call. Its first call also gives this telemetry the runner's secret scrubbing (the runner's
   * known secrets, live), so chat spans of clients instrumented without a runner are scrubbed of
   * them too. One interceptor per runner.
   */
  public ToolInterceptor toolInterceptor() {
    java.util.concurrent.atomic.AtomicBoolean joined = new java.util.concurrent.atomic.AtomicBoolean();
    return chain -> {
      if (joined.compareAndSet(false, true)) {
        runnerScrubs.add(text -> chain.scrub(com.fasterxml.jackson.databind.node.TextNode.valueOf(text)).asText());
      }
      ToolRequest request = chain.request();
      String implementation = chain.tool().implementation().type();
      var builder = tracer.spanBuilder("execute_tool " + request.tool()).setSpanKind(SpanKind.INTERNAL)
          .setAttribute(OPERATION, "execute_tool").setAttribute(TOOL_NAME, request.tool()).setAttribute(TOOL_IMPLEMENTATION, implementation);
      if (request.modelCall() != null) {
        builder.setAttribute(TOOL_CALL_ID, request.modelCall().toolCallId());
      }
      if (captureContent) {
        builder.setAttribute(TOOL_ARGUMENTS, RcrtJson.write(chain.scrub(request.input())));
      }
      Span span = builder.startSpan();
      long start = System.nanoTime();
      @Nullable String outcome = null;
      try (Scope ignored = span.makeCurrent()) {
        ToolResponse response = chain.proceed(request);
        outcome = response.success() ? "success" : response.errorCode();
        if (!response.success()) {
          fail(span, String.valueOf(response.errorCode()));
        }
        if (captureContent) {
          span.setAttribute(TOOL_RESULT, response.success() ? RcrtJson.write(response.requireOutput()) : String.valueOf(response.error()));
        }
        return response;
      } catch (RuntimeException e) {
        outcome = e instanceof RcrtException r ? r.code() : e.getClass().getName();
        fail(span, outcome);
        throw e;
      } finally {
        toolDuration.record((System.nanoTime() - start) / 1e9, Attributes.of(
            TOOL_NAME, request.tool(), TOOL_IMPLEMENTATION, implementation, TOOL_OUTCOME, outcome == null ? "unknown" : outcome));
        span.end();
      }
    };
  }

  private static void fail(Span span, String type) {
    span.setStatus(StatusCode.ERROR);
    span.setAttribute(ERROR_TYPE, type);
  }
}

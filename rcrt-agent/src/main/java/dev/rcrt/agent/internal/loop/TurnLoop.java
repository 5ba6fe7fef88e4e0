package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentObserver;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.LlmConfig;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.StreamListener;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * One agent's turns, in the design's order: discover and offer ({@link Offers}) → build the
 * messages (system prompt, instructions, session memory, the user message) → ask the model →
 * dispatch its calls ({@link CallDispatcher}) → repeat until it answers without calls or the round
 * limit is reached → record the {@code agent.response.v1}. Conversation records are written here
 * and nowhere else (tool requests and responses are the tool chain's). Thread-safe.
 */
public final class TurnLoop {
  private final LoopSettings settings;
  private final AgentDefinition agent;
  private final int depth;
  private final BreadcrumbStore store;
  private final Offers offers;
  private final CallDispatcher dispatcher;

  /**
   * @param pool runs the parallel calls of one answer; owned by the caller
   */
  public TurnLoop(LoopSettings settings, AgentDefinition agent, int depth, ExecutorService pool) {
    this.settings = settings;
    this.agent = agent;
    this.depth = depth;
    this.store = settings.runner().store();
    this.offers = new Offers(settings, agent, depth);
    this.dispatcher = new CallDispatcher(settings, agent, pool, this::askSpecialist);
  }

  /**
   * The request the first round of a turn answering {@code text} in a new session would send;
   * nothing is written and the model is not asked.
   */
  public ChatRequest preview(String text) {
    Model llm = llmConfig();
    Offer offer = offers.offer(text, "preview", llm.name(), "");
    return request(offer, llm, opening(offer, List.of(), text));
  }

  /**
   * The model and options of this turn: the agent's, else its {@code llm_config_id}'s (read now),
   * else the client's default model; the model is never null.
   */
  private Model llmConfig() {
    LlmConfig config = LlmConfig.resolve(agent, store, settings.runner().policy());
    return new Model(config.model(settings.llm().defaultModel().orElse(null)), config.options());
  }

  /** The model a turn asks, resolved, and its options. */
  private record Model(String name, dev.rcrt.llm.ChatOptions options) {}

  /** System prompt, the offer's instructions, the session's memory, the user's message. */
  private List<ChatMessage> opening(Offer offer, List<ChatMessage> memory, String text) {
    List<ChatMessage> messages = new ArrayList<>();
    messages.add(ChatMessage.system(agent.systemPrompt()));
    if (!offer.instructions().isEmpty()) {
      messages.add(ChatMessage.system(offer.instructions()));
    }
    messages.addAll(memory);
    messages.add(ChatMessage.user(text));
    return messages;
  }

  /** One round's request: only the native protocol sends {@code tools}. */
  private static ChatRequest request(Offer offer, Model llm, List<ChatMessage> messages) {
    return new ChatRequest(llm.name(), messages, offer.sendsTools() ? offer.prompt().tools() : RcrtJson.array(), llm.options());
  }

  /** Writes {@code message} as a {@code user.message.v1} and answers it. */
  public Breadcrumb ask(UserMessage message) {
    return answer(store.create(message.toBreadcrumb()));
  }

  /**
   * Answers one stored {@code user.message.v1}, or the one an {@code agent.context.v1} names
   * ({@link Trigger}), and writes the {@code agent.response.v1}.
   *
   * @return the stored response
   * @throws dev.rcrt.core.ValidationException if the trigger is neither with content, or the agent
   *     has no usable model ({@link LlmConfig#resolve})
   * @throws dev.rcrt.llm.LlmException if the model cannot be asked; tool failures never throw
   */
  public Breadcrumb answer(Breadcrumb received) {
    AgentObserver observer = settings.observer();
    if (observer == AgentObserver.NONE) {
      return turn(received);
    }
    AgentObserver.Turn observed = observer.turnStarted(agent.agentId(), UserMessage.sessionOf(received));
    Breadcrumb recorded;
    try {
      recorded = turn(received);
    } catch (RuntimeException e) {
      observed.ended(null, e);
      throw e;
    }
    observed.ended(AgentResponse.fromBreadcrumb(recorded), null);
    return recorded;
  }

  private Breadcrumb turn(Breadcrumb received) {
    Trigger trigger = Trigger.read(store, received);
    UserMessage said = trigger.message();
    String session = said.sessionId();
    Model llm = llmConfig();
    Offer offer = offers.offer(said.content(), session, llm.name(), trigger.context());
    List<ChatMessage> messages =
        opening(offer, SessionMemory.before(store, trigger.question(), session, settings.historyLimit()), said.content());

    Counters turn = new Counters();
    String answer = null;
    Envelope envelope = null;
    while (answer == null && turn.rounds < settings.maxRounds()) {
      turn.rounds++;
      String round = trigger.question().id() + "#" + turn.rounds;
      ChatRequest request = request(offer, llm, messages);
      StreamListener listener = depth == 0 ? settings.streamListener() : null; // a specialist's text is not the user's answer
      ChatResponse response = listener != null ? settings.llm().chat(request, listener) : settings.llm().chat(request);
      turn.add(response.model() != null ? response : response.withModel(llm.name()));
      ChatMessage assistant = response.message();
      String content = assistant.content() == null ? "" : assistant.content();
      if (offer.protocol() == Offer.Protocol.ENVELOPE) {
        envelope = Envelope.parse(content).orElse(null);
        if (envelope == null || envelope.requests().isEmpty()) {
          answer = envelope == null || envelope.message().isEmpty() ? content : envelope.message();
          break;
        }
        List<ToolCall> calls = envelope.toolCalls(String.valueOf(turn.rounds));
        turn.toolCalls += calls.size();
        List<String> results = dispatcher.run(calls, offer, session, round);
        if (!envelope.returnsToModel()) {
          answer = Envelope.direct(envelope.message(), calls, results);
          break;
        }
        messages.add(ChatMessage.assistant(content, List.of()));
        messages.add(ChatMessage.user(TextToolCalls.results(calls, results)));
        continue;
      }
      List<ToolCall> calls = assistant.toolCalls();
      boolean written = false;
      if (calls.isEmpty()) {
        calls = TextToolCalls.parse(content, String.valueOf(turn.rounds));
        written = !calls.isEmpty();
      }
      if (calls.isEmpty()) {
        answer = content;
        break;
      }
      turn.toolCalls += calls.size();
      List<String> results = dispatcher.run(calls, offer, session, round);
      if (written) {
        messages.add(ChatMessage.assistant(content, List.of()));
        messages.add(ChatMessage.user(TextToolCalls.results(calls, results)));
      } else {
        messages.add(assistant);
        for (int i = 0; i < calls.size(); i++) {
          messages.add(ChatMessage.tool(calls.get(i).id(), results.get(i)));
        }
      }
    }
    AgentResponse.Status status = AgentResponse.Status.SUCCESS;
    if (answer == null) {
      status = AgentResponse.Status.ROUND_LIMIT;
      answer =
          "I stopped after " + settings.maxRounds() + " rounds of tool calls without reaching a final answer"
              + " (the round limit is " + settings.maxRounds() + "). Please ask again, more specifically.";
    }
    BreadcrumbCreate written = record(trigger.question(), session, answer, status, turn, null);
    return store.create(envelope == null ? written : envelope.decorate(written));
  }

  /** Records that {@code trigger} could not be answered: an {@code agent.response.v1} with {@code status: "error"}. */
  public Breadcrumb recordFailure(Breadcrumb trigger, RcrtException e) {
    String session = UserMessage.sessionOf(trigger);
    return store.create(record(trigger, session, "Sorry, I could not answer: " + e.getMessage(), AgentResponse.Status.ERROR, new Counters(),
        new AgentResponse.Error(e.code(), e.getMessage())));
  }

  private BreadcrumbCreate record(
      Breadcrumb trigger, String session, String message, AgentResponse.Status status, Counters turn, AgentResponse.@Nullable Error error) {
    AgentResponse response =
        new AgentResponse(
            "", session, agent.agentId(), trigger.id(), message, turn.model, status, turn.rounds,
            turn.toolCalls, turn.usage(), error);
    return response.toBreadcrumb();
  }

  /** A specialist's own turn, one level deeper, on a pool of its own (the caller's may be full of waiting calls). */
  private AgentResponse askSpecialist(AgentDefinition specialist, String session, String message) {
    ExecutorService pool = Executors.newFixedThreadPool(settings.parallelism(), settings.threads().factory());
    try {
      TurnLoop sub = new TurnLoop(settings, specialist, depth + 1, pool);
      return AgentResponse.fromBreadcrumb(sub.ask(new UserMessage(session + "/" + specialist.agentId(), message)));
    } finally {
      pool.shutdownNow();
    }
  }

  /** Counters of one turn. */
  private static final class Counters {
    /** The model that gave the last answer: as the provider named it, else as it was asked for. */
    @Nullable String model;
    int rounds;
    int toolCalls;
    long promptTokens;
    long completionTokens;
    long totalTokens;

    void add(ChatResponse response) {
      model = response.model();
      ChatResponse.Usage usage = response.usage();
      if (usage != null) {
        promptTokens += usage.promptTokens();
        completionTokens += usage.completionTokens();
        totalTokens += usage.totalTokens();
      }
    }

    ChatResponse.@Nullable Usage usage() {
      return totalTokens > 0 ? new ChatResponse.Usage(promptTokens, completionTokens, totalTokens) : null;
    }
  }
}

package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.internal.DaemonThreads;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
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
    Offer offer = offers.offer(text, "preview");
    return request(offer, opening(offer, List.of(), text));
  }

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

  /** One round's request: the text protocol sends no {@code tools}. */
  private ChatRequest request(Offer offer, List<ChatMessage> messages) {
    return new ChatRequest(agent.model(), messages, offer.textProtocol() ? null : offer.prompt().tools(), agent.options(), null);
  }

  /** Writes {@code message} as a {@code user.message.v1} and answers it. */
  public Breadcrumb ask(UserMessage message) {
    return answer(store.create(message.toBreadcrumb()));
  }

  /**
   * Answers one stored {@code user.message.v1} and writes the {@code agent.response.v1}.
   *
   * @return the stored response
   * @throws dev.rcrt.core.ValidationException if the trigger is not a user message with content
   * @throws dev.rcrt.llm.LlmException if the model cannot be asked; tool failures never throw
   */
  public Breadcrumb answer(Breadcrumb trigger) {
    UserMessage said = UserMessage.fromBreadcrumb(trigger);
    String session = said.sessionId();
    Offer offer = offers.offer(said.content(), session);
    List<ChatMessage> messages =
        opening(offer, SessionMemory.before(store, trigger, session, settings.historyLimit()), said.content());

    Counters turn = new Counters();
    String answer = null;
    while (answer == null && turn.rounds < settings.maxRounds()) {
      turn.rounds++;
      String round = trigger.id() + "#" + turn.rounds;
      ChatRequest request = request(offer, messages).withStream(depth == 0 ? settings.streamListener() : null);
      ChatResponse response = settings.llm().chat(request);
      turn.add(response.model() != null ? response : response.withModel(agent.model()));
      ChatMessage assistant = response.message();
      List<ToolCall> calls = assistant.toolCalls();
      boolean written = false;
      if (calls.isEmpty() && assistant.content() != null) {
        calls = TextToolCalls.parse(assistant.content(), String.valueOf(turn.rounds));
        written = !calls.isEmpty();
      }
      if (calls.isEmpty()) {
        answer = assistant.content() == null ? "" : assistant.content();
        break;
      }
      turn.toolCalls += calls.size();
      List<String> results = dispatcher.run(calls, offer, session, round);
      if (written) {
        messages.add(ChatMessage.assistant(assistant.content(), List.of()));
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
    return record(trigger, session, answer, status, turn, null);
  }

  /** Records that {@code trigger} could not be answered: an {@code agent.response.v1} with {@code status: "error"}. */
  public Breadcrumb recordFailure(Breadcrumb trigger, RcrtException e) {
    String session = UserMessage.sessionOf(trigger);
    return record(trigger, session, "Sorry, I could not answer: " + e.getMessage(), AgentResponse.Status.ERROR, new Counters(),
        new AgentResponse.Error(e.code(), e.getMessage()));
  }

  private Breadcrumb record(
      Breadcrumb trigger, String session, String message, AgentResponse.Status status, Counters turn, AgentResponse.@Nullable Error error) {
    AgentResponse response =
        new AgentResponse(
            "", session, agent.agentId(), trigger.id(), message, turn.model, status, turn.rounds,
            turn.toolCalls, turn.usage(), error);
    return store.create(response.toBreadcrumb());
  }

  /** A specialist's own turn, one level deeper, on a pool of its own (the caller's may be full of waiting calls). */
  private AgentResponse askSpecialist(AgentDefinition specialist, String session, String message) {
    ExecutorService pool = DaemonThreads.pool(settings.parallelism(), "rcrt-agent-" + specialist.agentId());
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

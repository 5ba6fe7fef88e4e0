package dev.rcrt.agent.internal.loop;

import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentObserver;
import dev.rcrt.agent.AgentResponse;
import dev.rcrt.agent.LlmConfig;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.UserMessage;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ClaimLostException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.WorkClaims;
import dev.rcrt.core.spi.Leases;
import dev.rcrt.llm.ChatMessage;
import dev.rcrt.llm.ChatRequest;
import dev.rcrt.llm.ChatResponse;
import dev.rcrt.llm.ToolCall;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent's runs, in the design's order: discover and offer ({@link Offers}) → build the
 * messages (system prompt, instructions, session memory, the user message, then every recorded
 * round with its results) → ask the model → record the round ({@link Round}) → dispatch its calls
 * ({@link CallDispatcher}) → repeat until the model answers without calls, the round limit or the
 * run's deadline is reached → record the one {@code agent.response.v1}.
 *
 * <p>A run's steps are taken by one process at a time, under the run's {@code WorkClaims} lease
 * (renewed while it works); its state is read back from its records ({@link RunRecords}) whenever
 * a process takes it up, so any process can continue where another stopped: a recorded round is
 * never asked again, a call with a response never runs again, and a request without one is run
 * again under its existing id. A call waiting for approval, or for a listening runner in event
 * mode, suspends the run: the claim is released and no thread waits ({@link Progress}).
 * Conversation records are written here and nowhere else (tool requests and responses are the tool
 * chain's). Thread-safe.
 */
public final class TurnLoop {
  private static final Logger LOG = LoggerFactory.getLogger(TurnLoop.class);
  private final LoopSettings settings;
  private final AgentDefinition agent;
  private final int depth;
  private final BreadcrumbStore store;
  private final Offers offers;
  private final CallDispatcher dispatcher;
  private final dev.rcrt.core.TimeSource clock;

  /**
   * @param pool runs the parallel calls of one answer; owned by the caller
   */
  public TurnLoop(LoopSettings settings, AgentDefinition agent, int depth, ExecutorService pool) {
    this.settings = settings;
    this.agent = agent;
    this.depth = depth;
    this.store = settings.runner().store();
    this.offers = new Offers(settings, agent, depth);
    this.dispatcher = new CallDispatcher(settings, agent, pool, this::childLoop);
    this.clock = settings.time();
  }

  /**
   * Where a run stands after this process took its steps.
   *
   * @param runId the run
   * @param answer the recorded answer, or null while the run goes on
   * @param status what the run waits for, when it has no answer
   * @param waitingFor what it waits for in words, or empty
   * @param wakeAt when a waiting run should be looked at again even if no record arrives (an
   *     approval's expiry, a call's response timeout, the run's deadline), or null
   * @param children the child runs its calls wait for (specialists' runs): a record of one moves this run on
   */
  public record Progress(
      String runId, @Nullable Breadcrumb answer, Run.Status status, String waitingFor, @Nullable Instant wakeAt, List<String> children) {
    private static final String HELD_ELSEWHERE = "another process is taking this run's steps";

    public Progress(String runId, @Nullable Breadcrumb answer, Run.Status status, String waitingFor, @Nullable Instant wakeAt) {
      this(runId, answer, status, waitingFor, wakeAt, List.of());
    }

    /** A run another process holds until {@code until} (unless it renews): its steps are that process's to take until then. */
    static Progress heldElsewhere(String runId, Instant until) {
      return new Progress(runId, null, Run.Status.RUNNING, HELD_ELSEWHERE, until);
    }

    /** Whether this is {@link #heldElsewhere}: {@link #wakeAt} is when the other process's hold runs out unless renewed. */
    public boolean isHeldElsewhere() {
      return answer == null && status == Run.Status.RUNNING && wakeAt != null && HELD_ELSEWHERE.equals(waitingFor);
    }

    /** Whether the run has ended: answered (here or elsewhere), failed or cancelled; nothing moves it on any more. */
    public boolean ended() {
      return answer != null || status == Run.Status.DONE || status == Run.Status.FAILED || status == Run.Status.CANCELLED;
    }
  }

  /** The agent this loop runs. */
  public AgentDefinition agent() {
    return agent;
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

  /** The run this loop's agent makes of {@code trigger}. */
  public String runIdOf(Breadcrumb trigger) {
    return RunIds.runId(agent.agentId(), Trigger.questionId(trigger));
  }

  /**
   * Writes {@code message} as a {@code user.message.v1} and takes the run's steps.
   *
   * @return the stored user message and where its run stands
   */
  public Progress ask(UserMessage message) {
    return take(store.create(message.toBreadcrumb()), true);
  }

  /**
   * Takes the steps of the run answering a stored {@code user.message.v1}, or the one an {@code
   * agent.context.v1} names ({@link Trigger}), until it is answered or waits; another process
   * holding the run leaves it to that process ({@link Run.Status#RUNNING}, no answer).
   *
   * @throws ValidationException if the trigger is neither with content, or the agent has no usable
   *     model ({@link LlmConfig#resolve})
   * @throws dev.rcrt.llm.LlmException if the model cannot be asked; tool failures never throw
   */
  public Progress answer(Breadcrumb received) {
    return take(received, false);
  }

  /**
   * Continues run {@code runId} of this loop's agent from its records (after a response, a
   * decision, or a process that died); nothing happens when the run is answered or unknown. A run
   * another worker holds costs one read of its claim: it is looked at again when that lease runs out.
   */
  public Optional<Progress> resume(String runId) {
    String key = RunIds.claimKey(runId);
    Optional<Instant> held = settings.claims().heldUntil(key);
    if (held.isPresent()) { // its holder takes its steps: one read, not the run's records, until that holder's lease runs out
      return Optional.of(Progress.heldElsewhere(runId, held.get()));
    }
    if (settings.claims().isCompleted(key)) {
      return Optional.of(new Progress(runId, null, Run.Status.DONE, "", null)); // answered: nothing to read
    }
    List<Breadcrumb> records = RunRecords.read(store, runId);
    Optional<String> parent = parentOf(records);
    if (parent.isPresent()) { // another agent's child run moved on: its parent (perhaps this agent's) is what to look at
      return Optional.of(new Progress(parent.get(), null, Run.Status.RUNNING, "its child run " + runId + " moved on", clock.instant()));
    }
    RunRecords known = RunRecords.of(records, settings.runner().policy(), runId, agent.agentId());
    String started = known.startedBy;
    if (known.answer != null) {
      return Optional.of(new Progress(runId, known.answer, Run.Status.DONE, "", null));
    }
    if (started == null) {
      return Optional.empty(); // no round recorded: such a run is found by its trigger, not by its id
    }
    return store.get(started).map(t -> take(t, false));
  }

  /**
   * The parent run of {@code records}, when they are another agent's child run (a round of it,
   * written by an agent other than this one, names it); empty for this agent's own runs.
   */
  private Optional<String> parentOf(List<Breadcrumb> records) {
    for (Breadcrumb b : records) {
      if (Run.isRound(b) && !Principal.writerOf(b).equals(Principal.agent(agent.agentId()))) {
        Optional<String> parent = b.tagValue(Trigger.PARENT_TAG);
        if (parent.isPresent()) {
          return parent;
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Takes the steps of a child run (this loop's agent answering a parent's stored call, {@link
   * Trigger}) as {@link #answer} does; a run ended elsewhere meanwhile comes with its recorded answer.
   */
  Progress answerOrEnd(Breadcrumb request) {
    Progress p = answer(request);
    if (p.answer() != null || p.status() != Run.Status.DONE) {
      return p;
    }
    Breadcrumb answer = RunRecords.load(store, settings.runner().policy(), p.runId(), agent.agentId()).answer;
    return new Progress(p.runId(), answer, Run.Status.DONE, "", null);
  }

  /**
   * Ends the run {@code trigger} starts with an error answer ({@code error}), and completes its
   * claim, so a step still under way records nothing more; nothing is written when it has an answer.
   */
  Breadcrumb end(Breadcrumb trigger, String why, AgentResponse.Error error) {
    return RunAnswer.end(store, RunRecords.load(store, settings.runner().policy(), runIdOf(trigger), agent.agentId()), trigger,
        "Sorry, I could not answer: " + why, AgentResponse.Status.ERROR, error, settings.claims(), settings.owner(), clock.instant());
  }

  /**
   * Takes the run's steps under its claim. A step whose claim is lost meanwhile (this process was
   * stalled past its lease and another took the run over, or the lease ran out) is abandoned before
   * its next write or call: nothing it would have written is written, and the run is looked at
   * again a lease later (by then its new holder has answered it, or has died and left it).
   */
  private Progress take(Breadcrumb received, boolean fresh) {
    String runId = runIdOf(received);
    Leases.Attempt attempt = settings.leases().attempt(store, settings.claims(), RunIds.claimKey(runId), settings.owner(), settings.runLease());
    Optional<Leases.Held> held = Optional.ofNullable(attempt.held());
    if (held.isEmpty()) {
      return elsewhere(runId, attempt.found());
    }
    AgentObserver.Turn observed = settings.observer().turnStarted(agent.agentId(), Trigger.sessionOf(received));
    Progress progress;
    try {
      RunRecords records = fresh ? new RunRecords(runId, agent.agentId(), settings.runner().policy())
          : RunRecords.load(store, settings.runner().policy(), runId, agent.agentId());
      progress = steps(received, runId, records, held.get());
    } catch (ClaimLostException lost) {
      held.get().stop();
      observed.ended(null, null);
      if (settings.claims().isCompleted(RunIds.claimKey(runId))) { // cancelled (Runs.cancel) or answered elsewhere: nothing to take up
        LOG.warn("agent '{}' abandoned its step of run '{}' without acting on it: the run was ended meanwhile (answered by the process"
            + " that took it over, or cancelled)", agent.agentId(), runId);
        return new Progress(runId, null, Run.Status.DONE, "", null);
      }
      LOG.warn("agent '{}' abandoned its step of run '{}' without acting on it: {}", agent.agentId(), runId, lost.getMessage());
      return new Progress(runId, null, Run.Status.RUNNING, "another process may have taken this run over",
          clock.instant().plus(settings.runLease()));
    } catch (RuntimeException | Error e) {
      held.get().release();
      observed.ended(null, e);
      throw e;
    }
    if (progress.answer() != null) {
      held.get().complete();
      observed.ended(AgentResponse.fromBreadcrumb(progress.answer()), null);
    } else {
      held.get().release();
      observed.ended(null, null);
      settings.observer().runWaiting(agent.agentId(), runId, progress.waitingFor());
    }
    return progress;
  }

  /**
   * Where a run another process holds, or has finished, stands, as the attempt to claim it found
   * (no further read): held, it is looked at again when the holder's lease runs out (at once after
   * the holder died, a lease later at most); finished, never again (its answer reaches whoever
   * waits for it as a record); neither (given back a moment ago), at once.
   */
  private Progress elsewhere(String runId, WorkClaims.Attempt found) {
    if (found.heldUntil() != null) {
      return Progress.heldElsewhere(runId, found.heldUntil());
    }
    return found.completed()
        ? new Progress(runId, null, Run.Status.DONE, "", null)
        : new Progress(runId, null, Run.Status.RUNNING, "the run was just released", clock.instant()); // released a moment ago: look again now
  }

  private Progress steps(Breadcrumb received, String runId, RunRecords run, Leases.Held held) {
    if (run.answer != null) {
      return new Progress(runId, run.answer, Run.Status.DONE, "", null);
    }
    Trigger trigger = Trigger.read(store, received);
    UserMessage said = trigger.message();
    String session = said.sessionId();
    Model llm = llmConfig();
    Offer offer = offers.offer(said.content(), session, llm.name(), trigger.context());
    List<ChatMessage> memory = trigger.child() ? List.of() : SessionMemory.before(store, trigger.question(), session, settings.historyLimit());
    List<ChatMessage> messages = opening(offer, memory, said.content());
    RunContext ctx = new RunContext(runId, session, trigger, offer, held);
    Instant started = run.startedAt != null ? run.startedAt : clock.instant();
    Instant deadline = deadline(started, run);

    for (Round round : run.rounds.values()) {
      if (round != run.lastRound()) {
        round.appendTo(messages, results(round, run));
      }
    }
    int replayed = run.lastRound() == null ? 0 : run.lastRound().index() - 1; // the last round's results come after its dispatch
    boolean ranCalls = false;
    // the claim was just taken (a claim completed by an answer or a cancellation is never taken) and the records read after it:
    // nothing can have been answered meanwhile until this loop's first step is taken; a cancellation from now on is met by the
    // fence of the next write or the check before the next model call
    boolean justClaimed = true;
    while (true) {
      Breadcrumb meanwhile = justClaimed ? null : answeredMeanwhile(runId);
      justClaimed = false;
      if (meanwhile != null) { // cancelled (Runs.cancel), or answered elsewhere, while these steps ran: take no further one
        return new Progress(runId, meanwhile, Run.Status.DONE, "", null);
      }
      if (!clock.instant().isBefore(deadline)) {
        String late = timedOut(deadline);
        return answered(ctx, run, null, envelopeOf(run.lastRound()), late, AgentResponse.Status.ERROR, new AgentResponse.Error("agent_timeout", late));
      }
      Round last = run.lastRound();
      if (last != null && replayed < last.index()) {
        CallDispatcher.Waiting waiting = dispatcher.run(last, offer, session, runId, roundRef(ctx, last.index()), llm.name(), run, held);
        if (waiting != null) {
          Instant wake = waiting.wakeAt() == null || waiting.wakeAt().isAfter(deadline) ? deadline : waiting.wakeAt();
          return new Progress(runId, null, waiting.status(),
              waiting.what(), wake, waiting.children());
        }
        List<String> results = results(last, run);
        if (last.protocol() == Offer.Protocol.ENVELOPE && !last.returnsToModel()) {
          Envelope envelope = envelopeOf(last);
          List<ToolCall> calls = last.calls().stream().map(Round.Call::call).toList();
          String message = envelope == null ? "" : envelope.message();
          return answered(ctx, run, null, envelope, Envelope.direct(message, calls, results), AgentResponse.Status.SUCCESS, null);
        }
        last.appendTo(messages, results);
        replayed = last.index();
        ranCalls = true;
      }
      int next = last == null ? 1 : last.index() + 1;
      if (next > settings.maxRounds()) {
        String limit = "I stopped after " + settings.maxRounds() + " rounds of tool calls without reaching a final answer"
            + " (the round limit is " + settings.maxRounds() + "). Please ask again, more specifically.";
        return answered(ctx, run, null, envelopeOf(last), limit, AgentResponse.Status.ROUND_LIMIT, null);
      }
      ChatRequest request = request(offer, llm, messages);
      // a holder that lost the run asks nothing: the model's time and tokens are its new holder's to spend. After calls ran
      // (they take time, and a cancellation may have come meanwhile), the claims are asked; otherwise the lease's freshness is enough
      if (ranCalls) {
        held.verify();
        ranCalls = false;
      } else {
        held.check();
      }
      LOG.debug("run {} ({}) round {}: asking model '{}' ({} messages, {} tools offered)", runId, agent.agentId(), next, llm.name(),
          messages.size(), offer.prompt().tools().size());
      // a specialist's text is not the user's answer
      RunText.Round streamed = depth == 0 ? settings.text().round(runId, next, offer.protocol() == Offer.Protocol.NATIVE) : null;
      ChatResponse response;
      try {
        response = streamed != null ? settings.llm().chat(request, streamed) : settings.llm().chat(request);
      } finally {
        if (streamed != null) {
          streamed.close();
        }
      }
      if (response.model() == null) {
        response = response.withModel(llm.name());
      }
      AgentResponse.Error unusable = unusable(response);
      if (unusable != null) { // a refusal, a filtered or a cut-off answer is no answer, and a half-written call never runs
        return answered(ctx, run, response, null, unusable.message(), AgentResponse.Status.ERROR, unusable);
      }
      String content = response.message().content() == null ? "" : response.message().content();
      Envelope envelope = offer.protocol() == Offer.Protocol.ENVELOPE ? Envelope.parse(content).orElse(null) : null;
      Round round = plan(ctx, next, response, envelope);
      LOG.debug("run {} round {}: '{}' answered{}", runId, next, response.model(), round == null ? " with text (" + content.length() + " chars)"
          : " with calls to " + round.calls().stream().map(c -> c.call().name()).toList());
      if (round == null) {
        String answer = envelope == null || envelope.message().isEmpty() ? content : envelope.message();
        return answered(ctx, run, response, envelope, answer, AgentResponse.Status.SUCCESS, null);
      }
      // recorded without any secret value the runner knows (a key the model echoed); this process's calls still get their input
      BreadcrumbCreate record = round.toBreadcrumb(agent.agentId(), session, trigger.question().id(), runId, received.id(), started)
          .withTags(Trigger.runTags(received));
      run.addLive(held.create(record.withContext(settings.runner().scrub(record.context()))), round); // fenced: a lost holder records nothing
    }
  }

  /**
   * The run's answer, when one was written after its records were read: a cancellation ({@code
   * Runs.cancel}), or another process's. Only this agent's answers count, as in {@link RunRecords}.
   * With the store's own claims, looked for only once the run's claim is completed.
   */
  private @Nullable Breadcrumb answeredMeanwhile(String runId) {
    if (store.claims().isPresent() && !settings.claims().isCompleted(RunIds.claimKey(runId))) {
      // the store's own claims: whoever answers or cancels a run completes its claim, so a claim not completed means no answer,
      // found by its key instead of a search of the answers (which cost a turn most of its database time)
      return null;
    }
    for (Breadcrumb b : store.search(Selector.schema(AgentResponse.SCHEMA).withAllTags(RunIds.tag(runId), "agent:response"), 10, 0)) {
      if (RunRecords.isAnswerBy(b, agent.agentId())) {
        return b;
      }
    }
    return null;
  }

  /**
   * The error a model's answer ends the run with when it cannot be used as an answer ({@link
   * ChatResponse#outcome()}): a refusal, a filtered answer, a cut-off one; null for a complete answer.
   */
  private static AgentResponse.@Nullable Error unusable(ChatResponse response) {
    String text = response.message().content() == null ? "" : response.message().content();
    return switch (response.outcome()) {
      case COMPLETE -> null;
      case REFUSED -> new AgentResponse.Error(AgentResponse.Error.MODEL_REFUSED, "The model refused to answer: " + response.refusal());
      case CONTENT_FILTERED -> new AgentResponse.Error(AgentResponse.Error.MODEL_CONTENT_FILTERED,
          "The provider's content filter withheld the model's answer (finish_reason \"content_filter\"); nothing it wrote was used.");
      case TRUNCATED -> response.message().hasToolCalls()
          ? new AgentResponse.Error(AgentResponse.Error.MODEL_TRUNCATED, "The model's answer was cut off at its output token limit"
              + " (finish_reason \"length\") while it wrote a call to '" + response.message().toolCalls().get(response.message().toolCalls().size() - 1).name()
              + "'; no call of it was run. Raise max_tokens, or ask for less.")
          : new AgentResponse.Error(AgentResponse.Error.MODEL_TRUNCATED, "The model's answer was cut off at its output token limit"
              + " (finish_reason \"length\"); raise max_tokens, or ask for less. What it wrote: " + text);
    };
  }

  /** What one run's steps share. */
  private record RunContext(String runId, String session, Trigger trigger, Offer offer, Leases.Held held) {}

  /** Identifies round {@code index}'s calls on their requests ({@code round}), for session memory. */
  private static String roundRef(RunContext ctx, int index) {
    return ctx.trigger().question().id() + "#" + index;
  }

  /**
   * The model's answer as a round to record before its calls run, or null when it asked for no
   * tool (the answer). Calls the offer cannot carry out (an unknown tool, arguments that are not a
   * JSON object) get the error the model is told instead of a request.
   *
   * @param envelope for an envelope agent, the envelope in the answer, if any; else null
   */
  private @Nullable Round plan(RunContext ctx, int index, ChatResponse response, @Nullable Envelope envelope) {
    ChatMessage assistant = response.message();
    String content = assistant.content() == null ? "" : assistant.content();
    Offer.Protocol protocol = ctx.offer().protocol();
    List<ToolCall> calls;
    boolean returns = true;
    if (protocol == Offer.Protocol.ENVELOPE) {
      if (envelope == null || envelope.requests().isEmpty()) {
        return null;
      }
      calls = envelope.toolCalls(String.valueOf(index));
      returns = envelope.returnsToModel();
    } else {
      calls = assistant.toolCalls();
      if (calls.isEmpty()) {
        calls = TextToolCalls.parse(content, String.valueOf(index));
        protocol = calls.isEmpty() ? protocol : Offer.Protocol.TEXT;
      } else {
        protocol = Offer.Protocol.NATIVE;
      }
      if (calls.isEmpty()) {
        return null;
      }
    }
    List<Round.Call> planned = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      planned.add(dispatcher.plan(calls.get(i), ctx.offer(), RunIds.requestId(ctx.runId(), index, i)));
    }
    return new Round(index, assistant, protocol, returns, planned, response.model(), response.usage());
  }

  /** The text the model reads for each call of {@code round}: its error, else its response. */
  private static List<String> results(Round round, RunRecords run) {
    List<String> results = new ArrayList<>();
    for (Round.Call c : round.calls()) {
      if (c.error() != null) {
        results.add(c.error());
      } else {
        dev.rcrt.tools.ToolResponse r = run.responses.get(c.requestId());
        if (r == null) {
          results.add("Error: the call to '" + c.call().name() + "' has no result.");
        } else {
          // a specialist's result is its answer's text
          results.add(c.specialist() && r.success() ? r.requireOutput().path("message").asText() : ToolResults.text(r));
        }
      }
    }
    return results;
  }

  private static @Nullable Envelope envelopeOf(@Nullable Round round) {
    return round == null || round.protocol() != Offer.Protocol.ENVELOPE
        ? null : Envelope.parse(round.assistant().content() == null ? "" : round.assistant().content()).orElse(null);
  }

  /**
   * When the run must end: its start (recorded with its rounds) plus the turn timeout, plus the
   * time its calls waited for approval (a person may take days; the approval's own expiry bounds
   * that), plus the time its calls to specialists took (each child run has its own deadline, and
   * may wait for approval too).
   */
  private Instant deadline(Instant started, RunRecords run) {
    Duration waited = Duration.ZERO;
    for (dev.rcrt.tools.ApprovalRequest a : run.approvals.values()) {
      Instant decided = run.decidedAt(a.requestId());
      Instant end = decided != null ? decided : a.expiresAt().isBefore(clock.instant()) ? a.expiresAt() : clock.instant();
      waited = waited.plus(Duration.between(a.requestedAt(), end).abs());
    }
    for (dev.rcrt.tools.InputRequest q : run.questions) {
      Instant answered = run.answeredAt(q, settings.runner().approvers());
      Instant end = answered != null ? answered : q.expiresAt().isBefore(clock.instant()) ? q.expiresAt() : clock.instant();
      waited = waited.plus(Duration.between(q.requestedAt(), end).abs());
    }
    for (Round round : run.rounds.values()) {
      for (Round.Call c : round.calls()) {
        Breadcrumb asked = c.specialist() && c.requestId() != null ? run.requests.get(c.requestId()) : null;
        if (asked != null) {
          Instant end = run.answeredAt.getOrDefault(c.requestId(), clock.instant());
          waited = waited.plus(Duration.between(asked.createdAt(), end).abs());
        }
      }
    }
    return started.plus(settings.turnTimeout()).plus(waited);
  }

  private String timedOut(Instant deadline) {
    return "Sorry, I could not answer in time: this turn passed its deadline (" + deadline + ", "
        + settings.turnTimeout().toSeconds() + " s after it started, not counting time spent waiting for approval, for its user's input or for specialists).";
  }

  /**
   * Records the run's one answer and returns where the run stands (answered).
   *
   * @param last the model's answer that ended the run, not a recorded round (its usage counts), or null
   */
  private Progress answered(
      RunContext ctx, RunRecords run, @Nullable ChatResponse last, @Nullable Envelope envelope, String message,
      AgentResponse.Status status, AgentResponse.@Nullable Error error) {
    List<String> tags = Trigger.runTags(ctx.trigger().question());
    // recorded without any secret value the runner knows, as rounds are: a key the model echoed reaches no reader of the answer
    Breadcrumb stored = RunAnswer.write(ctx.held()::create, run, last, ctx.session(), ctx.trigger().question().id(), message, status, error,
        b -> {
          BreadcrumbCreate shaped = (envelope == null ? b : envelope.decorate(b)).withTags(tags);
          return shaped.withContext(settings.runner().scrub(shaped.context()));
        });
    run.add(stored);
    LOG.debug("run {} ended {}{}", ctx.runId(), status.name().toLowerCase(java.util.Locale.ROOT), error == null ? "" : " [" + error.code() + "]");
    return new Progress(ctx.runId(), stored, status == AgentResponse.Status.ERROR ? Run.Status.FAILED : Run.Status.DONE, "", null);
  }

  /**
   * Records that run {@code trigger} starts could not be answered: its one answer, with {@code
   * status: "error"} (nothing is written when it has one already).
   */
  public Breadcrumb recordFailure(Breadcrumb trigger, RcrtException e) {
    RunRecords run = RunRecords.load(store, settings.runner().policy(), runIdOf(trigger), agent.agentId());
    return RunAnswer.end(store, run, trigger, "Sorry, I could not answer: " + e.getMessage(), AgentResponse.Status.ERROR,
        new AgentResponse.Error(e.code(), e.getMessage()), null, settings.owner(), clock.instant());
  }

  /**
   * The loop of a specialist's child runs: one level deeper, its time limit the specialist timeout
   * (not counting approval waits, as for any run).
   */
  private TurnLoop childLoop(AgentDefinition specialist, ExecutorService pool) {
    return new TurnLoop(settings.withTurnTimeout(settings.specialistTimeout()), specialist, depth + 1, pool);
  }
}

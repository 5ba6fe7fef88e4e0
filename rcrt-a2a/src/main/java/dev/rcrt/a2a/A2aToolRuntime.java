package dev.rcrt.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.TimeSource;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolRuntime;
import io.a2a.spec.AgentCard;
import io.a2a.spec.EventKind;
import io.a2a.spec.Message;
import io.a2a.spec.Task;
import io.a2a.spec.TaskState;
import io.a2a.util.Utils;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code a2a} implementation type: a tool record that names a remote A2A agent, {@code {"type":
 * "a2a", "card_url": "https://…/.well-known/agent-card.json", "skill": "id"?, "headers": {…}?,
 * "bearer_token": "secret:NAME"?, "allowed_origins": ["https://host:port", …]?}} ({@link A2aImport}
 * writes such records from a card). Found by the
 * {@link dev.rcrt.tools.ToolRunner} through {@link java.util.ServiceLoader} when {@code rcrt-a2a} is
 * on the classpath.
 *
 * <p>The tool's input is {@code {"message": text, "context_id"?: id, "task_id"?: id}} (a task id
 * continues a task that asked for input). A call fetches the card (kept 5 minutes per URL and
 * headers), checks the card's URL and the agent's endpoint with the trust policy as HTTP tools are
 * checked ({@code allowNetwork}; a card that points at a private address is refused), sends the
 * message without blocking, then follows the task: by {@code tasks/resubscribe} when the card
 * offers streaming, else by {@code tasks/get} every 0.1 to 1 s. Its output is {@code {"state",
 * "text", "task_id", "context_id", "artifacts"}}: the answer's text parts (or the agent's message
 * when the task waits for input) and the artifacts as A2A gives them. A task that fails, is
 * cancelled or rejected is a {@code tool_failed} with the agent's words. At the call's limit the
 * task is cancelled at the agent ({@code tasks/cancel}, within the last tenth of the limit, at least
 * 1 s but at most half the limit, and at most 2 s) and the call ends {@code tool_timeout}. {@code
 * secret:} header values and the bearer token are resolved at each call and sent only to the
 * origin the record names: the card URL's, and an endpoint the card names on another origin only
 * when the record lists that origin in {@code allowed_origins} (else the call is refused before anything is sent there, {@code tool_failed}
 * naming the origin): whoever serves or alters the card cannot collect them. Redirects are never
 * followed.
 */
public final class A2aToolRuntime implements ToolRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(A2aToolRuntime.class);
  private static final Duration CARD_TTL = Duration.ofMinutes(5);
  private static final int MAX_CARDS = 256;

  private final Map<String, Cached> cards = new ConcurrentHashMap<>();

  /** A card and when it was fetched, on the runner's monotonic clock ({@link TimeSource#nanoTime()}). */
  private record Cached(AgentCard card, long fetchedNanos) {}

  /** The runtime found through {@link java.util.ServiceLoader}. */
  public A2aToolRuntime() {}

  @Override
  public String type() {
    return "a2a";
  }

  @Override
  public List<String> problems(ToolDefinition definition) {
    List<String> out = new ArrayList<>();
    JsonNode spec = definition.implementation().spec();
    String where = "tool '" + definition.name() + "' implementation.";
    JsonNode url = spec.path("card_url");
    if (!url.isTextual() || !(url.asText().startsWith("http://") || url.asText().startsWith("https://"))) {
      out.add(where + "card_url: required, the http:// or https:// URL of the agent's Agent Card");
    } else {
      try {
        URI.create(url.asText());
      } catch (IllegalArgumentException e) {
        out.add(where + "card_url: not a URL: " + e.getMessage());
      }
    }
    if (!spec.path("headers").isMissingNode() && !spec.path("headers").isObject()) {
      out.add(where + "headers: an object of header names to values (secret:NAME allowed)");
    }
    spec.path("headers").properties().forEach(h -> {
      if (!h.getValue().isTextual()) {
        out.add(where + "headers." + h.getKey() + ": a string");
      }
    });
    JsonNode origins = spec.path("allowed_origins");
    if (!origins.isMissingNode()) {
      if (!origins.isArray()) {
        out.add(where + "allowed_origins: an array of origins such as \"https://agent.example.com\"");
      } else {
        for (JsonNode o : origins) {
          String path = o.isTextual() ? URI.create(o.asText().strip().replace(" ", "%20")).getRawPath() : null;
          if (!o.isTextual() || origin(o.asText()) == null || path != null && !path.isEmpty() && !path.equals("/")) {
            out.add(where + "allowed_origins: '" + o.asText() + "' is no http(s) origin (scheme://host[:port], no path)");
          }
        }
      }
    }
    JsonNode bearer = spec.path("bearer_token");
    if (!bearer.isMissingNode() && !(bearer.isTextual() && bearer.asText().startsWith("secret:"))) {
      out.add(where + "bearer_token: a secret:NAME reference (a token is never kept in a record)");
    }
    if (!spec.path("skill").isMissingNode() && !spec.path("skill").isTextual()) {
      out.add(where + "skill: the id of one of the card's skills");
    }
    return out;
  }

  @Override
  public Loaded load(ToolDefinition definition, Services services) {
    List<String> problems = problems(definition);
    if (!problems.isEmpty()) {
      throw new ToolException(ToolErrorCode.TOOL_DEFINITION_INVALID, String.join("; ", problems));
    }
    JsonNode spec = definition.implementation().spec();
    URI cardUrl = URI.create(spec.get("card_url").asText());
    services.checkConnect("A2A agent card", cardUrl);
    String skill = spec.path("skill").isTextual() ? spec.get("skill").asText() : null;
    long maxBytes = definition.maxResponseBytes();
    return new Loaded() {
      @Override
      public JsonNode call(JsonNode input, Call call) {
        Map<String, String> headers = headers(spec, call);
        A2aClient client = new A2aClient(exchange(call, null), headers, maxBytes);
        AgentCard card = card(client, cardUrl, headers, call.time());
        URI endpoint;
        try {
          endpoint = URI.create(card.url());
        } catch (IllegalArgumentException e) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "the Agent Card at " + cardUrl + " names a url that is not one: " + A2aClient.excerpt(card.url()));
        }
        if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "the Agent Card at " + cardUrl + " names " + endpoint + "; only http(s) JSON-RPC endpoints are spoken");
        }
        services.checkConnect("A2A agent", endpoint);
        String there = origin(endpoint.toString());
        if (!Objects.equals(there, origin(cardUrl.toString())) && !allowed(spec, there)) {
          throw new ToolException(ToolErrorCode.TOOL_FAILED, "the Agent Card at " + cardUrl + " names an endpoint on another origin, " + there
              + "; the tool's credentials go only to the origin its record names, so nothing was sent there. If that agent is meant,"
              + " add \"" + there + "\" to the tool's implementation.allowed_origins");
        }
        return follow(client, card, endpoint, input, skill, call);
      }

      @Override
      public boolean enforcesDeadline() {
        return true;
      }
    };
  }

  /** The call's HTTP exchanges, streams of events included, within {@code within} (null: the call's time left). */
  private static A2aClient.Exchange exchange(Call call, @Nullable Duration within) {
    return new A2aClient.Exchange() {
      @Override
      public java.net.http.HttpResponse<byte[]> send(java.net.http.HttpRequest request, long maxBytes) {
        return within == null ? call.send(request, maxBytes) : call.send(request, maxBytes, within);
      }

      @Override
      public java.net.http.HttpResponse<byte[]> sendEvents(java.net.http.HttpRequest request, long maxBytes,
          java.util.function.Predicate<String> stopAt) {
        return call.sendEvents(request, maxBytes, within == null ? call.remaining() : within, stopAt);
      }
    };
  }

  /** The origin of {@code url}, {@code scheme://host:port} in lower case with the port spelt out, or null for no http(s) URL with a host. */
  static @Nullable String origin(String url) {
    try {
      URI u = URI.create(url.strip());
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(java.util.Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null) {
        return null;
      }
      int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
      return scheme + "://" + u.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + port;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static boolean allowed(JsonNode spec, @Nullable String origin) {
    for (JsonNode o : spec.path("allowed_origins")) {
      if (origin != null && origin.equals(origin(o.asText()))) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, String> headers(JsonNode spec, Call call) {
    Map<String, String> headers = new LinkedHashMap<>();
    spec.path("headers").properties().forEach(h -> {
      String v = h.getValue().asText();
      headers.put(h.getKey(), v.startsWith("secret:") ? call.secret(v) : v);
    });
    if (spec.path("bearer_token").isTextual()) {
      headers.put("Authorization", "Bearer " + call.secret(spec.get("bearer_token").asText()));
    }
    return headers;
  }

  /**
   * The card, from the cache while it is fresh ({@code CARD_TTL} on the runner's {@code time}); the
   * cache key holds the headers' values only as a hash.
   */
  private AgentCard card(A2aClient client, URI cardUrl, Map<String, String> headers, TimeSource time) {
    String key = cardUrl + "#" + headers.hashCode();
    Cached cached = cards.get(key);
    if (cached != null && time.nanoTime() - cached.fetchedNanos() < CARD_TTL.toNanos()) {
      return cached.card();
    }
    AgentCard card;
    try {
      card = client.card(cardUrl);
    } catch (A2aClient.A2aException e) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, String.valueOf(e.getMessage()));
    }
    if (cards.size() >= MAX_CARDS) {
      cards.clear();
    }
    cards.put(key, new Cached(card, time.nanoTime()));
    return card;
  }

  private static JsonNode follow(A2aClient client, AgentCard card, URI endpoint, JsonNode input, @Nullable String skill, Call call) {
    Duration grace = cancelTime(call.limit());
    Message message = A2aClient.message(input.path("message").asText(), text(input, "context_id"), text(input, "task_id"),
        skill == null ? Map.of() : Map.of("skill", skill));
    EventKind first;
    try {
      first = client.send(endpoint, message, false);
    } catch (A2aClient.A2aException e) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "A2A agent '" + card.name() + "': " + e.getMessage());
    }
    if (first instanceof Message reply) {
      ObjectNode out = RcrtJson.object().put("state", "completed").put("text", A2aClient.text(reply.getParts()));
      out.put("context_id", reply.getContextId());
      out.putArray("artifacts");
      return out;
    }
    Task task = (Task) first;
    Duration pause = Duration.ofMillis(100);
    boolean streaming = card.capabilities() != null && card.capabilities().streaming();
    try {
      while (!settled(task)) {
        Duration left = call.remaining().minus(grace);
        if (left.isNegative() || left.isZero()) {
          throw timedOut(client, card, endpoint, task, call);
        }
        if (streaming) {
          try {
            task = java.util.Objects.requireNonNull(A2aClient.fold(task, client.resubscribe(endpoint, task.getId(), exchange(call, left))));
          } catch (ToolException e) {
            if (!ToolErrorCode.TOOL_TIMEOUT.code().equals(e.code())) {
              throw e;
            }
            throw timedOut(client, card, endpoint, task, call);
          }
          if (!settled(task)) { // a stream that ended early (the agent's own limit): look again after a pause
            Duration wait = min(pause, call.remaining().minus(grace));
            if (!wait.isNegative()) {
              call.time().sleep(wait);
            }
            pause = min(pause.multipliedBy(2), Duration.ofSeconds(1));
            task = client.get(endpoint, task.getId());
          }
        } else {
          call.time().sleep(min(pause, left));
          pause = min(pause.multipliedBy(2), Duration.ofSeconds(1));
          task = client.get(endpoint, task.getId());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "interrupted while A2A agent '" + card.name() + "' worked on task " + task.getId());
    } catch (A2aClient.A2aException e) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "A2A agent '" + card.name() + "': " + e.getMessage());
    }
    return output(card, task);
  }

  /** Whether the task is final or waits for the caller. */
  private static boolean settled(Task task) {
    TaskState state = task.getStatus().state();
    return state.isFinal() || state == TaskState.INPUT_REQUIRED || state == TaskState.AUTH_REQUIRED;
  }

  private static ToolException timedOut(A2aClient client, AgentCard card, URI endpoint, Task task, Call call) {
    String cancelled;
    try {
      client.cancel(endpoint, task.getId());
      cancelled = "it was cancelled there";
    } catch (RuntimeException e) {
      LOG.debug("cancelling A2A task {} failed: {}", task.getId(), e.toString());
      cancelled = "cancelling it there failed (" + call.scrub(String.valueOf(e.getMessage())) + ")";
    }
    return new ToolException(ToolErrorCode.TOOL_TIMEOUT, "A2A agent '" + card.name() + "' did not finish task " + task.getId() + " within "
        + call.limit().toMillis() + " ms; " + cancelled);
  }

  private static JsonNode output(AgentCard card, Task task) {
    TaskState state = task.getStatus().state();
    String statusText = task.getStatus().message() == null ? "" : A2aClient.text(task.getStatus().message().getParts());
    if (state == TaskState.FAILED || state == TaskState.CANCELED || state == TaskState.REJECTED || state == TaskState.UNKNOWN) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "A2A agent '" + card.name() + "' task " + task.getId() + " ended " + state.asString()
          + (statusText.isBlank() ? "" : ": " + A2aClient.excerpt(statusText)));
    }
    if (state == TaskState.AUTH_REQUIRED) {
      throw new ToolException(ToolErrorCode.TOOL_FAILED, "A2A agent '" + card.name() + "' needs authentication for task " + task.getId()
          + "; give the tool record headers or a bearer_token");
    }
    ObjectNode out = RcrtJson.object().put("state", state.asString());
    out.put("text", A2aClient.answerText(task));
    out.put("task_id", task.getId());
    out.put("context_id", task.getContextId());
    out.set("artifacts", task.getArtifacts() == null ? RcrtJson.array() : Utils.OBJECT_MAPPER.valueToTree(task.getArtifacts()));
    return out;
  }

  private static @Nullable String text(JsonNode input, String field) {
    JsonNode v = input.path(field);
    return v.isTextual() && !v.asText().isBlank() ? v.asText() : null;
  }

  /**
   * The time kept at the end of a call for cancelling its task at the agent: a tenth of the limit,
   * at least 1 s (so a loaded machine's scheduling does not eat it) but at most half the limit, and
   * at most 2 s.
   */
  static Duration cancelTime(Duration limit) {
    Duration tenth = limit.dividedBy(10);
    Duration atLeast = tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
    return min(min(atLeast, limit.dividedBy(2)), Duration.ofSeconds(2));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}

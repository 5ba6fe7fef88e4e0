package dev.rcrt.a2a;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.rcrt.core.spi.Excerpts;
import dev.rcrt.tools.internal.loader.http.BoundedBody;
import io.a2a.spec.AgentCard;
import io.a2a.spec.Artifact;
import io.a2a.spec.CancelTaskRequest;
import io.a2a.spec.CancelTaskResponse;
import io.a2a.spec.EventKind;
import io.a2a.spec.GetTaskRequest;
import io.a2a.spec.GetTaskResponse;
import io.a2a.spec.JSONRPCError;
import io.a2a.spec.JSONRPCResponse;
import io.a2a.spec.Message;
import io.a2a.spec.MessageSendConfiguration;
import io.a2a.spec.MessageSendParams;
import io.a2a.spec.Part;
import io.a2a.spec.SendMessageRequest;
import io.a2a.spec.SendMessageResponse;
import io.a2a.spec.SendStreamingMessageRequest;
import io.a2a.spec.SendStreamingMessageResponse;
import io.a2a.spec.StreamingEventKind;
import io.a2a.spec.Task;
import io.a2a.spec.TaskArtifactUpdateEvent;
import io.a2a.spec.TaskIdParams;
import io.a2a.spec.TaskQueryParams;
import io.a2a.spec.TaskResubscriptionRequest;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import io.a2a.util.Utils;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A small A2A 0.3.0 JSON-RPC client on the official SDK's request and response types: fetch an
 * Agent Card, send a message (blocking or not, or streamed), read, cancel and resubscribe to a task.
 * Every exchange goes through one {@link Exchange}, so the tool runtime sends through the tool
 * runner's client (its deadline, size cap, no redirects) and {@code ./rcrt a2a} through the JDK's.
 * A stream is read until it ends (when its task is final or waits for input), or up to its first
 * event that is not an A2A response or is an error, which fails the call at once.
 *
 * <p>Errors are {@link A2aException}s that name the URL and, for a JSON-RPC error, its code and
 * message (cut to 500 characters). Thread-safe when the exchange is.
 */
public final class A2aClient {
  /** The most bytes of an answer read by {@link #of}: 8 MiB. */
  public static final long MAX_ANSWER_BYTES = 8L * 1024 * 1024;

  /** Sends one request and reads its whole answer within {@code maxBytes}. */
  @FunctionalInterface
  public interface Exchange {
    HttpResponse<byte[]> send(HttpRequest request, long maxBytes);

    /**
     * Sends one request whose answer is a stream of server-sent events, and reads it until it ends
     * or up to the end of the first event whose data {@code stopAt} accepts (an event that is not an
     * A2A response, or an error), closing the exchange there: a stream that goes wrong fails the
     * call at once instead of at its deadline. The default reads the whole answer with {@link #send}.
     */
    default HttpResponse<byte[]> sendEvents(HttpRequest request, long maxBytes, Predicate<String> stopAt) {
      return send(request, maxBytes);
    }
  }

  /** A failed exchange: not reachable, not an A2A answer, or a JSON-RPC error. */
  public static final class A2aException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final @Nullable Integer rpcCode;

    A2aException(String message, @Nullable Integer rpcCode) {
      super(message);
      this.rpcCode = rpcCode;
    }

    /** The JSON-RPC error code the agent answered, or null when the failure was not one. */
    public @Nullable Integer rpcCode() {
      return rpcCode;
    }
  }

  private final Exchange exchange;
  private final Map<String, String> headers;
  private final long maxBytes;

  /**
   * A client sending through {@code exchange}, with {@code headers} (such as {@code Authorization})
   * on every request, reading at most {@code maxBytes} of each answer.
   */
  public A2aClient(Exchange exchange, Map<String, String> headers, long maxBytes) {
    this.exchange = Objects.requireNonNull(exchange, "exchange");
    this.headers = Map.copyOf(headers);
    this.maxBytes = maxBytes;
  }

  /**
   * A client on the JDK's HTTP client: no redirects followed, {@code timeout} for each whole
   * exchange (body included), at most {@link #MAX_ANSWER_BYTES} read, and an event stream read
   * only up to its first event that is not an A2A response or is an error.
   */
  public static A2aClient of(Map<String, String> headers, Duration timeout) {
    HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(timeout).build();
    return new A2aClient(new Exchange() {
      @Override
      public HttpResponse<byte[]> send(HttpRequest request, long maxBytes) {
        return read(http, request, timeout, maxBytes, null);
      }

      @Override
      public HttpResponse<byte[]> sendEvents(HttpRequest request, long maxBytes, Predicate<String> stopAt) {
        return read(http, request, timeout, maxBytes, stopAt);
      }
    }, headers, MAX_ANSWER_BYTES);
  }

  /** One exchange through the tool runtime's bounded reader (the deadline covers the body too; the cap cancels it). */
  private static HttpResponse<byte[]> read(HttpClient http, HttpRequest request, Duration timeout, long max, @Nullable Predicate<String> stopAt) {
    try {
      return BoundedBody.send(http, HttpRequest.newBuilder(request, (n, v) -> true).timeout(timeout).build(), timeout, max, stopAt);
    } catch (BoundedBody.Failure f) {
      switch (f.kind()) {
        case TOO_LARGE -> throw new A2aException(request.uri() + " answered more than " + max + " bytes", null);
        case TIMEOUT -> throw new A2aException(request.uri() + " gave no complete answer within " + timeout.toMillis() + " ms", null);
        case INTERRUPTED -> throw new A2aException("interrupted while calling " + request.uri(), null); // its flag is set again
        default -> throw new A2aException("could not reach " + request.uri() + ": " + f.getMessage(), null);
      }
    }
  }

  /** The well-known path of an agent's card, under its base URL (A2A 0.3.0). */
  public static final String CARD_PATH = "/.well-known/agent-card.json";

  /**
   * The card URL {@code text} names: itself when its path ends in {@code .json}, else {@link
   * #CARD_PATH} under it.
   *
   * @throws IllegalArgumentException if it is not an http or https URL
   */
  public static URI cardUrl(String text) {
    URI uri = URI.create(text.strip());
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("an A2A agent's URL starts with http:// or https://, found '" + excerpt(text) + "'");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    return path.endsWith(".json") ? uri : URI.create(text.strip().replaceAll("/+$", "") + CARD_PATH);
  }

  /** The Agent Card at {@code cardUrl}. */
  public AgentCard card(URI cardUrl) {
    HttpResponse<byte[]> response = exchange.send(request(cardUrl).GET().header("Accept", "application/json").build(), maxBytes);
    String text = body(cardUrl, response);
    try {
      AgentCard card = Utils.OBJECT_MAPPER.readValue(text, AgentCard.class);
      if (card.url() == null || card.url().isBlank()) {
        throw new A2aException("the Agent Card at " + cardUrl + " names no url", null);
      }
      return card;
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new A2aException("the answer of " + cardUrl + " is not an A2A Agent Card: " + excerpt(String.valueOf(e.getMessage())), null);
    }
  }

  /**
   * A user message with {@code text}, in {@code contextId} and continuing {@code taskId} when given.
   *
   * @param metadata extra metadata, such as {@code {"skill": id}}; may be empty
   */
  public static Message message(String text, @Nullable String contextId, @Nullable String taskId, Map<String, Object> metadata) {
    Message.Builder m = new Message.Builder().role(Message.Role.USER).parts(List.of(new TextPart(text))).messageId(UUID.randomUUID().toString());
    if (contextId != null) {
      m.contextId(contextId);
    }
    if (taskId != null) {
      m.taskId(taskId);
    }
    if (!metadata.isEmpty()) {
      m.metadata(new LinkedHashMap<>(metadata));
    }
    return m.build();
  }

  /** {@code message/send}: the task (or the agent's direct message); waits for it to settle when {@code blocking}. */
  public EventKind send(URI endpoint, Message message, boolean blocking) {
    MessageSendParams params = new MessageSendParams.Builder().message(message)
        .configuration(new MessageSendConfiguration.Builder().blocking(blocking).acceptedOutputModes(List.of("text/plain", "application/json")).build())
        .build();
    return result(endpoint, call(endpoint, new SendMessageRequest(id(), params), SendMessageResponse.class));
  }

  /** {@code message/stream}: every event until the stream ends. */
  public List<StreamingEventKind> stream(URI endpoint, Message message) {
    MessageSendParams params = new MessageSendParams.Builder().message(message).build();
    return events(endpoint, new SendStreamingMessageRequest(id(), params), exchange, maxBytes);
  }

  /** {@code tasks/resubscribe} through {@code streaming} (the tool runtime's, to bound its time): every event until the stream ends. */
  public List<StreamingEventKind> resubscribe(URI endpoint, String taskId, Exchange streaming) {
    return events(endpoint, new TaskResubscriptionRequest(id(), new TaskIdParams(taskId)), streaming, maxBytes);
  }

  /** {@code tasks/get}. */
  public Task get(URI endpoint, String taskId) {
    return result(endpoint, call(endpoint, new GetTaskRequest(id(), new TaskQueryParams(taskId)), GetTaskResponse.class));
  }

  /** {@code tasks/cancel}: the task as the agent tells it afterwards. */
  public Task cancel(URI endpoint, String taskId) {
    return result(endpoint, call(endpoint, new CancelTaskRequest(id(), new TaskIdParams(taskId)), CancelTaskResponse.class));
  }

  private <R extends JSONRPCResponse<?>> R call(URI endpoint, Object request, Class<R> type) {
    String text = body(endpoint, exchange.send(post(endpoint, request).header("Accept", "application/json").build(), maxBytes));
    try {
      return Utils.OBJECT_MAPPER.readValue(text, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new A2aException(endpoint + " answered something that is not an A2A JSON-RPC response: " + excerpt(text), null);
    }
  }

  private static <T> T result(URI endpoint, JSONRPCResponse<T> response) {
    JSONRPCError error = response.getError();
    if (error != null) {
      throw new A2aException(endpoint + " answered JSON-RPC error " + error.getCode() + ": " + excerpt(String.valueOf(error.getMessage())), error.getCode());
    }
    T result = response.getResult();
    if (result == null) {
      throw new A2aException(endpoint + " answered neither a result nor an error", null);
    }
    return result;
  }

  private List<StreamingEventKind> events(URI endpoint, Object request, Exchange through, long max) {
    HttpResponse<byte[]> response =
        through.sendEvents(post(endpoint, request).header("Accept", "text/event-stream").build(), max, A2aClient::endsTheStream);
    String text = new String(response.body(), StandardCharsets.UTF_8);
    if (response.statusCode() / 100 != 2) {
      throw new A2aException(endpoint + " answered HTTP " + response.statusCode() + ": " + excerpt(text), null);
    }
    List<StreamingEventKind> out = new ArrayList<>();
    for (String event : text.replace("\r\n", "\n").split("\n\n")) {
      StringBuilder data = new StringBuilder();
      for (String line : event.split("\n")) {
        if (line.startsWith("data:")) {
          data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
        }
      }
      if (data.length() == 0) {
        continue;
      }
      SendStreamingMessageResponse item;
      try {
        item = Utils.OBJECT_MAPPER.readValue(data.toString(), SendStreamingMessageResponse.class);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        throw new A2aException(endpoint + " streamed an event that is not an A2A response: " + excerpt(data.toString()), null);
      }
      out.add(result(endpoint, item));
    }
    return out;
  }

  /** Whether an event's data ends the reading of a stream: it is not an A2A response, or it is an error. */
  private static boolean endsTheStream(String data) {
    try {
      return Utils.OBJECT_MAPPER.readValue(data, SendStreamingMessageResponse.class).getError() != null;
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return true;
    }
  }

  private HttpRequest.Builder request(URI uri) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri);
    headers.forEach(b::header);
    return b;
  }

  private HttpRequest.Builder post(URI endpoint, Object request) {
    try {
      return request(endpoint).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(Utils.OBJECT_MAPPER.writeValueAsBytes(request)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an A2A request could not be written", e);
    }
  }

  private static String body(URI uri, HttpResponse<byte[]> response) {
    String text = new String(response.body(), StandardCharsets.UTF_8);
    if (response.statusCode() / 100 != 2) {
      throw new A2aException(uri + " answered HTTP " + response.statusCode() + ": " + excerpt(text), null);
    }
    return text;
  }

  private static String id() {
    return UUID.randomUUID().toString();
  }

  /** At most 500 characters of what a remote sent, on one line, for a message. */
  static String excerpt(String text) {
    return Excerpts.of(text, 500);
  }

  /** The text of {@code parts}: their text parts, joined by newlines (empty when there are none). */
  public static String text(List<Part<?>> parts) {
    List<String> out = new ArrayList<>();
    for (Part<?> p : parts) {
      if (p instanceof TextPart t) {
        out.add(t.getText());
      }
    }
    return String.join("\n", out);
  }

  /**
   * What a task says to its caller: the text of its artifacts, or the status message's text when it
   * waits for input or its artifacts hold no text (empty when there is neither).
   */
  public static String answerText(Task task) {
    String status = task.getStatus().message() == null ? "" : text(task.getStatus().message().getParts());
    List<String> texts = new ArrayList<>();
    for (Artifact a : task.getArtifacts() == null ? List.<Artifact>of() : task.getArtifacts()) {
      texts.add(text(a.parts()));
    }
    return task.getStatus().state() == TaskState.INPUT_REQUIRED || texts.stream().allMatch(String::isBlank) ? status : String.join("\n", texts);
  }

  /**
   * The task after a stream's events: the last task the stream sent (else {@code before}), with the
   * status updates and artifacts that followed it; null when neither gave a task.
   */
  public static @Nullable Task fold(@Nullable Task before, List<StreamingEventKind> events) {
    Task task = before;
    for (StreamingEventKind event : events) {
      if (event instanceof Task t) {
        task = t;
      } else if (event instanceof TaskStatusUpdateEvent u && task != null) {
        task = new Task.Builder(task).status(u.getStatus()).build();
      } else if (event instanceof TaskArtifactUpdateEvent a && task != null) {
        task = Utils.appendArtifactToTask(task, a, task.getId());
      }
    }
    return task;
  }
}

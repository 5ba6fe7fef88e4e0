package dev.rcrt.tools.js.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ConflictException;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Sensitivity;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.core.Visibility;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolExchange;
import dev.rcrt.tools.ToolRuntime;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The host's side of one call's {@code context.api}, {@code context.request.trigger_event} and
 * {@code fetch}: a worker asks, this answers, with the calling tool's rights.
 *
 * <ul>
 *   <li>The store is the tool's view ({@link ToolContext#store()}): writes stamped {@code
 *       tool:<name>}; tools, configs, agents and schema definitions refused unless the trust policy
 *       trusts the tool. The context of a {@code Secret}-sensitivity record is never handed out.
 *   <li>{@code getSecret}/{@code decryptSecret} go through the call's {@link ToolRuntime.Call#secret}: only the
 *       names the tool's record or its trusted {@code tool.config.v1} grants, and the value is then
 *       scrubbed from everything the call produces.
 *   <li>{@code fetch}: see {@link GuestFetch}.
 *   <li>{@code context.sample}, {@code context.elicit}, {@code context.progress}, {@code
 *       context.log} and every {@code console} line go to the call's {@link ToolContext#exchange()}.
 * </ul>
 *
 * <p>All of it runs under the call's deadline: no request starts once it has passed, and {@code
 * fetch} gets only the time left. Searches take at most {@value #MAX_LIMIT} records a page. Used by
 * one call on one thread.
 */
final class JsHostCalls {
  /** The most records one search answers. */
  static final int MAX_LIMIT = 500;
  /** RCRT's page size when a search names none. */
  private static final int DEFAULT_LIMIT = 100;
  /** The keys of RCRT's {@code searchBreadcrumbs} parameters that are not selector fields. */
  private static final List<String> SEARCH_PARAMETERS = List.of("tag", "tags", "limit", "offset", "include_context");

  private final ToolContext tool;
  private final ToolRuntime.Call call;
  private final GuestFetch fetch;
  private final long deadlineNanos;

  JsHostCalls(JsCode code, ToolRuntime.Services services, ToolRuntime.Call call, long deadlineNanos) {
    this.tool = call.context();
    this.call = call;
    this.fetch = new GuestFetch(code, services, call);
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Answers one request from the guest.
   *
   * @param op one of the worker's host operations
   * @param args its arguments as the worker sent them: strings, or null where the guest gave none
   * @return {@code {"value": …}} or {@code {"error": "…"}}, which the guest sees as a rejected Promise
   */
  JsonNode answer(String op, JsonNode args) {
    if (remaining().isZero()) {
      return RcrtJson.object().put("error", "the call's time limit has passed; no more host calls");
    }
    try {
      JsonNode value =
          switch (op) {
            case "get" -> tool.store().get(text(args, 0)).map(JsHostCalls::visible).orElse(RcrtJson.nodes().nullNode());
            case "search" -> search(RcrtJson.parse(text(args, 0)), number(args, 1, "limit"));
            case "vector" -> vector(RcrtJson.parse(text(args, 0)));
            case "create" -> visible(tool.store().create(createPayload(RcrtJson.parse(text(args, 0)))));
            case "update" -> update(text(args, 0), number(args, 1, "version"), RcrtJson.parse(text(args, 2)));
            case "delete" -> delete(text(args, 0), number(args, 1, "version"));
            case "secret" -> RcrtJson.object().put("value", call.secret(text(args, 0)));
            case "trigger" -> trigger();
            case "fetch" -> fetch.send(text(args, 0), text(args, 1), text(args, 2), args.path(3).isTextual() ? args.path(3).asText() : null, remaining());
            case "sample" -> sample(RcrtJson.parse(text(args, 0)));
            case "elicit" -> elicit(RcrtJson.parse(text(args, 0)));
            default -> throw new IllegalArgumentException("no host operation '" + op + "'");
          };
      return RcrtJson.object().set("value", value);
    } catch (RcrtException | IllegalArgumentException e) {
      return RcrtJson.object().put("error", e.getMessage());
    }
  }

  /**
   * Passes on one of the guest's notifications: {@code progress} ({@code {progress, total,
   * message}}) or {@code log} ({@code {level, message}}, every {@code console} line among them) to
   * the call's {@link ToolContext#exchange()}, which bounds and scrubs them. A malformed one is
   * dropped: notifications never fail the call.
   */
  void notify(String op, JsonNode args) {
    JsonNode fields;
    try {
      fields = RcrtJson.parse(args.path(0).asText("{}"));
    } catch (RcrtException malformed) {
      return;
    }
    switch (op) {
      case "progress" -> tool.progress(fields.path("progress").asDouble(-1),
          fields.path("total").isNumber() ? fields.get("total").asDouble() : null, fields.path("message").isTextual() ? fields.get("message").asText() : null);
      case "log" -> tool.log(ToolExchange.LogLevel.of(fields.path("level").asText()), fields.path("message").asText(""));
      default -> {
        // not a notification the worker sends
      }
    }
  }

  /** {@code context.sample(prompt | {messages, systemPrompt, maxTokens})}: the caller's model answers {@code {text, model, stopReason}}. */
  private JsonNode sample(JsonNode r) {
    List<ToolExchange.SamplingMessage> messages = new java.util.ArrayList<>();
    for (JsonNode m : r.path("messages")) {
      messages.add(new ToolExchange.SamplingMessage(m.path("role").asText("user"), m.path("text").asText("")));
    }
    ToolExchange.Sampled answer =
        tool.sample(new ToolExchange.Sampling(messages, r.path("systemPrompt").isTextual() ? r.get("systemPrompt").asText() : null, r.path("maxTokens").asInt(1000)));
    return RcrtJson.object().put("text", answer.text()).put("model", answer.model()).put("stopReason", answer.stopReason());
  }

  /** {@code context.elicit(message, requestedSchema)}: the caller's user answers {@code {action, content}}. */
  private JsonNode elicit(JsonNode r) {
    ToolExchange.Elicited answer = tool.elicit(new ToolExchange.Elicitation(r.path("message").asText(""), r.path("requestedSchema")));
    ObjectNode out = RcrtJson.object().put("action", answer.action().wire());
    out.set("content", answer.content() == null ? RcrtJson.nodes().nullNode() : answer.content());
    return out;
  }

  /** Time left before the call's deadline; zero when passed. */
  Duration remaining() {
    return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
  }

  /**
   * {@code searchBreadcrumbs}: a selector ({@code schema_name}, {@code any_tags}, {@code all_tags},
   * {@code context_match}) and RCRT's parameters ({@code tag}, {@code tags}, {@code limit}, {@code
   * offset}) in one object, each tag required.
   */
  private JsonNode search(JsonNode query, @Nullable Long limitArgument) {
    if (!query.isObject()) {
      throw new IllegalArgumentException("searchBreadcrumbs takes an object such as {schema_name, tag, limit}, not " + query.getNodeType());
    }
    ObjectNode selectorPart = ((ObjectNode) query).deepCopy();
    SEARCH_PARAMETERS.forEach(selectorPart::remove);
    Selector selector = Selector.fromJson(selectorPart);
    if (query.path("tag").isTextual()) {
      selector = selector.withAllTags(query.get("tag").asText());
    }
    for (JsonNode tag : query.path("tags")) {
      selector = selector.withAllTags(tag.asText());
    }
    long limit = limitArgument != null ? limitArgument : query.path("limit").asLong(DEFAULT_LIMIT);
    long offset = Math.max(0, query.path("offset").asLong(0));
    return list(tool.store().search(selector, (int) Math.max(1, Math.min(limit, MAX_LIMIT)), (int) Math.min(offset, Integer.MAX_VALUE)));
  }

  /** {@code vectorSearch({q, nn, schema_name, tag})}, answered by the store's {@link VectorSearch}. */
  private JsonNode vector(JsonNode params) {
    String q = params.path("q").asText(params.path("query").asText(""));
    if (q.isBlank()) {
      throw new IllegalArgumentException("vectorSearch needs a query in 'q'");
    }
    VectorSearch search =
        tool.store().vectorSearch().orElseThrow(() -> new IllegalArgumentException(
            "vectorSearch is not available: this store has no embeddings (use searchBreadcrumbs with schema_name and"
                + " tag, or build the store with an EmbeddingProvider: InMemoryBreadcrumbStore.builder().embeddings(...),"
                + " PostgresBreadcrumbStore.builder(...).embeddings(...), or use an RCRT server)"));
    Selector filter = params.path("schema_name").isTextual() ? Selector.schema(params.get("schema_name").asText()) : Selector.all();
    if (params.path("tag").isTextual()) {
      filter = filter.withAllTags(params.get("tag").asText());
    }
    int nn = (int) Math.max(1, Math.min(params.path("nn").asLong(5), MAX_LIMIT));
    return list(search.nearest(q, nn, filter));
  }

  /**
   * A create payload read as RCRT reads it: a {@code visibility} or {@code sensitivity} RCRT does
   * not know (its own {@code breadcrumb-create} tool offers {@code "internal"}) falls back to the
   * default instead of failing.
   */
  private static BreadcrumbCreate createPayload(JsonNode payload) {
    if (!payload.isObject()) {
      throw new IllegalArgumentException("createBreadcrumb takes an object {schema_name, title, tags, context}, not " + payload.getNodeType());
    }
    ObjectNode lenient = ((ObjectNode) payload).deepCopy();
    dropUnknown(lenient, "visibility", Visibility.class);
    dropUnknown(lenient, "sensitivity", Sensitivity.class);
    try {
      return RcrtJson.read(lenient, BreadcrumbCreate.class);
    } catch (dev.rcrt.core.ValidationException e) {
      throw new IllegalArgumentException("createBreadcrumb: " + e.getMessage());
    }
  }

  private static <E extends Enum<E>> void dropUnknown(ObjectNode payload, String field, Class<E> type) {
    JsonNode value = payload.get(field);
    if (value == null) {
      return;
    }
    boolean known =
        value.isTextual()
            && java.util.Arrays.stream(type.getEnumConstants()).anyMatch(c -> c.name().equalsIgnoreCase(value.asText()));
    if (!known) {
      payload.remove(field);
    }
  }

  /** {@code updateBreadcrumb(id, version, updates)}: the version the tool read, as RCRT's {@code If-Match}. */
  private JsonNode update(String id, @Nullable Long version, JsonNode updates) {
    if (version == null) {
      throw new IllegalArgumentException(
          "updateBreadcrumb(id, version, updates) needs the version you read (getBreadcrumb(id).version), so a concurrent change is not lost");
    }
    BreadcrumbUpdate update;
    try {
      update = RcrtJson.read(updates, BreadcrumbUpdate.class);
    } catch (dev.rcrt.core.ValidationException e) {
      throw new IllegalArgumentException("updateBreadcrumb: " + e.getMessage());
    }
    return visible(tool.store().update(id, version, update));
  }

  /** {@code deleteBreadcrumb(id, version?)}: with a version, refused when the record has moved on. */
  private JsonNode delete(String id, @Nullable Long version) {
    if (version != null) {
      Breadcrumb current = tool.store().get(id).orElse(null);
      if (current != null && current.version() != version) {
        throw new ConflictException(id, version, current.version());
      }
    }
    return RcrtJson.object().put("ok", tool.store().delete(id));
  }

  /**
   * {@code context.request.trigger_event}: the request's breadcrumb as RCRT's event stream carries
   * it ({@code {type, breadcrumb_id, version, tags, schema_name, updated_at, context}}), or null for
   * a call whose request was not recorded.
   */
  private JsonNode trigger() {
    return tool.store()
        .get(tool.requestId())
        .<JsonNode>map(b -> {
          ObjectNode event = RcrtJson.object().put("type", "breadcrumb.updated").put("breadcrumb_id", b.id()).put("version", b.version());
          event.set("tags", RcrtJson.toTree(b.tags()));
          event.put("schema_name", b.schemaName()).put("updated_at", b.updatedAt().toString());
          event.set("context", b.isSecret() ? RcrtJson.object() : b.context());
          return event;
        })
        .orElse(RcrtJson.nodes().nullNode());
  }

  private static JsonNode list(List<Breadcrumb> breadcrumbs) {
    ArrayNode out = RcrtJson.array();
    breadcrumbs.forEach(b -> out.add(visible(b)));
    return out;
  }

  /** A breadcrumb as tools see it: the context of a secret-sensitivity record is left out. */
  private static JsonNode visible(Breadcrumb b) {
    ObjectNode json = RcrtJson.toTree(b);
    if (b.isSecret()) {
      json.remove("context");
    }
    return json;
  }

  private static String text(JsonNode args, int index) {
    JsonNode value = args.path(index);
    if (!value.isTextual()) {
      throw new IllegalArgumentException("argument " + (index + 1) + " is required");
    }
    return value.asText();
  }

  private static @Nullable Long number(JsonNode args, int index, String name) {
    JsonNode value = args.path(index);
    if (value.isMissingNode() || value.isNull()) {
      return null;
    }
    try {
      return (long) Double.parseDouble(value.asText());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, not '" + value.asText() + "'");
    }
  }
}

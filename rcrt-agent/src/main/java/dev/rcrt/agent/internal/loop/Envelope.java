package dev.rcrt.agent.internal.loop;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.llm.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RCRT's agent reply protocol: the model answers with a JSON envelope {@code {"action": "create",
 * "breadcrumb": {"schema_name": "agent.response.v1", "title", "tags", "context": {"message",
 * "tool_requests": [{"tool", "input", "requestId", "return_to_llm"}]}}}}, fenced or not.
 *
 * <p>Found and repaired as RCRT does: the first {@code ```json} fenced block if there is one, then
 * the first balanced object that has {@code "action"} and {@code "breadcrumb"}, read leniently
 * (comments, single quotes, unquoted names, trailing commas, and unclosed brackets at the end
 * closed). A reply with no such envelope is no envelope: the executor then takes its text as the
 * message, as RCRT does.
 *
 * @param breadcrumb the model's breadcrumb object (its title, tags and context are kept)
 * @param message {@code context.message}, or empty
 * @param requests the tool requests, in order
 */
record Envelope(ObjectNode breadcrumb, String message, List<Request> requests) {

  /**
   * One of the envelope's {@code tool_requests}.
   *
   * @param returnToLlm RCRT's {@code return_to_llm}: true sends the result back to the model for
   *     another round; false (the default) gives it to the user as it is
   */
  record Request(String tool, JsonNode input, String requestId, boolean returnToLlm) {}

  /** The reminder added to the tool prompt for envelope agents (their own prompt explains the envelope). */
  static final String INSTRUCTIONS =
      "\nTo use tools, put them in your JSON envelope's breadcrumb context: \"tool_requests\": [{\"tool\": \"tool_name\","
          + " \"input\": { /* the tool's parameters */ }, \"requestId\": \"r1\", \"return_to_llm\": true}]. With"
          + " return_to_llm true the results come back to you in the next message; with false they go to the user as they are.\n";

  private static final Pattern FENCE = Pattern.compile("```(?:json)?\\s*([\\s\\S]*?)\\s*```");
  private static final JsonMapper LENIENT =
      JsonMapper.builder()
          .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS, JsonReadFeature.ALLOW_SINGLE_QUOTES,
              JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES, JsonReadFeature.ALLOW_TRAILING_COMMA,
              JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
          .build();

  /** The envelope in a model's reply, or empty when there is none. */
  static Optional<Envelope> parse(String reply) {
    String content = reply.strip();
    Matcher fenced = FENCE.matcher(content);
    if (fenced.find()) {
      content = fenced.group(1);
    }
    JsonNode json = read(firstEnvelopeObject(content));
    if (!json.isObject() || !json.path("breadcrumb").isObject() || !"create".equals(json.path("action").asText("create"))) {
      return Optional.empty();
    }
    ObjectNode breadcrumb = (ObjectNode) json.get("breadcrumb");
    JsonNode context = breadcrumb.path("context");
    List<Request> requests = new ArrayList<>();
    int n = 0;
    for (JsonNode r : context.path("tool_requests")) {
      n++;
      if (r.path("tool").isTextual()) {
        JsonNode input = r.path("input").isObject() ? r.get("input") : RcrtJson.object();
        String id = r.path("requestId").asText(r.path("request_id").asText(""));
        requests.add(new Request(r.get("tool").asText(), input, id.isBlank() ? "env-" + n : id, r.path("return_to_llm").asBoolean(false)));
      }
    }
    return Optional.of(new Envelope(breadcrumb, context.path("message").asText(""), requests));
  }

  /** Whether any request asks for its result to go back to the model. */
  boolean returnsToModel() {
    return requests.stream().anyMatch(Request::returnToLlm);
  }

  /** The requests as tool calls, ids made unique within the round. */
  List<ToolCall> toolCalls(String round) {
    List<ToolCall> calls = new ArrayList<>();
    for (Request r : requests) {
      // text-call ids, so that session memory replays these turns as text, as the model wrote them
      calls.add(new ToolCall(TextToolCalls.ID_PREFIX + round + "_" + r.requestId(), r.tool(), RcrtJson.write(r.input())));
    }
    return calls;
  }

  /**
   * The answer when every result goes straight to the user ({@code return_to_llm: false}): the
   * envelope's message, then each tool's result.
   */
  static String direct(String message, List<ToolCall> calls, List<String> results) {
    StringBuilder text = new StringBuilder(message);
    for (int i = 0; i < calls.size(); i++) {
      text.append(text.isEmpty() ? "" : "\n").append(calls.get(i).name()).append(": ").append(results.get(i));
    }
    return text.toString();
  }

  /** Tag prefixes the model may not set on its response: they route records to sessions, consumers and runners. */
  private static final List<String> RESERVED_TAGS = List.of("session:", "consumer:", "request:", "runner:", "tool:", "agent:", "workspace:", "run:");

  /**
   * The executor's {@code agent.response.v1} with the model's breadcrumb folded in, as RCRT writes
   * the breadcrumb the envelope describes: its title, its tags (less those that route records:
   * {@code session:}, {@code consumer:}, {@code request:}, {@code runner:}, {@code tool:}, {@code
   * agent:}, {@code workspace:}), and its context fields under the executor's own. The schema stays
   * {@code agent.response.v1} whatever the model named: an envelope cannot create tools, agents
   * or any other kind of record.
   */
  BreadcrumbCreate decorate(BreadcrumbCreate ours) {
    List<String> tags = new ArrayList<>(ours.tags());
    for (JsonNode tag : breadcrumb.path("tags")) {
      String t = tag.asText();
      if (!t.isBlank() && !tags.contains(t) && RESERVED_TAGS.stream().noneMatch(t::startsWith)) {
        tags.add(t);
      }
    }
    ObjectNode context = breadcrumb.path("context").isObject() ? ((ObjectNode) breadcrumb.get("context")).deepCopy() : RcrtJson.object();
    context.setAll((ObjectNode) ours.context());
    String title = breadcrumb.path("title").isTextual() && !breadcrumb.get("title").asText().isBlank() ? breadcrumb.get("title").asText() : ours.title();
    return new BreadcrumbCreate(
        ours.id(), title, ours.description(), ours.semanticVersion(), context, tags, ours.schemaName(), ours.llmHints(),
        ours.visibility(), ours.sensitivity(), ours.ttl(), ours.ttlType(), ours.ttlConfig(), ours.createdBy(), ours.idempotencyKey());
  }

  /** The first balanced object with {@code "action"} and {@code "breadcrumb"}, else the text as it is. */
  private static String firstEnvelopeObject(String text) {
    int depth = 0;
    int start = -1;
    boolean inString = false;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          inString = false;
        }
      } else if (c == '"' || c == '\'') {
        inString = true;
        quote = c;
      } else if (c == '{') {
        if (depth++ == 0) {
          start = i;
        }
      } else if (c == '}' && depth > 0 && --depth == 0) {
        String candidate = text.substring(start, i + 1);
        if (candidate.contains("action") && candidate.contains("breadcrumb")) {
          return candidate;
        }
      }
    }
    return start >= 0 ? text.substring(start) : text;
  }

  /**
   * Reads leniently; a reply cut off before its closing brackets has them added. A reply with a
   * number beyond a double is no envelope (as everywhere the SDK reads JSON).
   */
  private static JsonNode read(String text) {
    JsonNode json;
    try {
      json = LENIENT.readTree(text);
    } catch (JsonProcessingException e) {
      try {
        json = LENIENT.readTree(text + closers(text));
      } catch (JsonProcessingException again) {
        return RcrtJson.nodes().missingNode();
      }
    }
    try {
      RcrtJson.checkFinite(json);
      return json;
    } catch (dev.rcrt.core.ValidationException beyondADouble) {
      return RcrtJson.nodes().missingNode();
    }
  }

  /** The brackets and quote left open at the end of {@code text}, closed innermost first. */
  private static String closers(String text) {
    StringBuilder open = new StringBuilder();
    boolean inString = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{' || c == '[') {
        open.append(c);
      } else if ((c == '}' || c == ']') && open.length() > 0) {
        open.setLength(open.length() - 1);
      }
    }
    StringBuilder close = new StringBuilder(inString ? "\"" : "");
    for (int i = open.length() - 1; i >= 0; i--) {
      close.append(open.charAt(i) == '{' ? '}' : ']');
    }
    return close.toString();
  }
}

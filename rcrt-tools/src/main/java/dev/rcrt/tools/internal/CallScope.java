package dev.rcrt.tools.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.rcrt.core.TimeSource;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * One tool call's deadline, measured on the runner's {@link TimeSource}, and its secrets. Secrets are resolved on demand through the resolver and
 * remembered, so that everything the call produces (output, error message, console lines) can be
 * scrubbed of their values before it is recorded or logged.
 *
 * <p>Thread-safe: a tool may resolve secrets from its own threads.
 */
public final class CallScope {
  /** What a secret value is replaced with wherever it would be recorded. */
  public static final String REDACTED = "[secret]";
  private static final String PREFIX = "secret:";

  private final String tool;
  private final TimeSource time;
  private final long deadlineNanos;
  private final Duration limit;
  private final SecretResolver resolver;
  private final Set<String> granted;
  private final SecretValues known;
  /** Writes the tool's store view refused during this call, for the trail; at most {@value #MAX_REFUSALS}. */
  private final java.util.List<String> refusedWrites = new java.util.concurrent.CopyOnWriteArrayList<>();
  private static final int MAX_REFUSALS = 20;

  /**
   * @param granted the secret names this call may resolve (see {@code ToolConfigs#grants}); any
   *     other name is refused before the resolver is asked
   * @param known the runner's memory of secret values; this call's are added to it, and all of
   *     them are scrubbed from what the call produces
   */
  public CallScope(
      String tool, Duration limit, TimeSource time, SecretResolver resolver, Set<String> granted, SecretValues known) {
    this.tool = tool;
    this.limit = limit;
    this.time = time;
    this.deadlineNanos = time.nanoTime() + limit.toNanos();
    this.resolver = resolver;
    this.granted = Set.copyOf(granted);
    this.known = known;
  }

  /** Notes a write the tool's store view refused (the tool also gets the error). */
  public void refusedWrite(String why) {
    if (refusedWrites.size() < MAX_REFUSALS) {
      refusedWrites.add(scrub(why));
    }
  }

  /** The writes refused so far, oldest first. */
  public java.util.List<String> refusedWrites() {
    return java.util.List.copyOf(refusedWrites);
  }

  /** The call's whole time limit. */
  public Duration limit() {
    return limit;
  }

  /** Time left before the deadline; zero when passed. */
  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, deadlineNanos - time.nanoTime()));
  }

  /** The runner's time: runtimes wait (a retry's back-off) and set timers through it, never by sleeping. */
  public TimeSource time() {
    return time;
  }

  /** Whether {@code text} is a {@code secret:NAME} reference. */
  public static boolean isReference(String text) {
    return text.startsWith(PREFIX) && text.length() > PREFIX.length();
  }

  /** The secret's name: {@code NAME} for {@code secret:NAME}, else the text as it is. */
  public static String nameOf(String nameOrReference) {
    return isReference(nameOrReference) ? nameOrReference.substring(PREFIX.length()) : nameOrReference;
  }

  /**
   * The value of secret {@code nameOrReference} ({@code NAME} or {@code secret:NAME}).
   *
   * @throws ToolException {@code tool_secret_denied} if the call was not granted the name, {@code
   *     tool_secret_missing} if the resolver does not know it; naming the secret, never a value
   */
  public String secret(String nameOrReference) {
    String name = nameOf(nameOrReference);
    if (!granted.contains(name)) {
      throw new ToolException(
          ToolErrorCode.TOOL_SECRET_DENIED,
          "tool '" + tool + "' may not read secret '" + name + "': neither its tool record (required_secrets,"
              + " auth, headers) nor a trusted tool.config.v1 grants it");
    }
    String value =
        resolver
            .resolve(name)
            .orElseThrow(
                () ->
                    new ToolException(
                        ToolErrorCode.TOOL_SECRET_MISSING,
                        "tool '" + tool + "' needs secret '" + name + "', which is not set; set it in"
                            + " the environment (" + name.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_")
                            + ") or in the host's secret resolver"));
    known.add(value);
    return value;
  }

  /**
   * Remembers a form of a secret the runtime produced itself, such as the {@code Authorization}
   * header value as sent, or the Base64 of a Basic credential, so it is scrubbed like the secret.
   */
  public void remember(String derived) {
    known.add(derived);
  }

  /** A deep copy of {@code json} with every {@code "secret:NAME"} string replaced by its value. */
  public JsonNode resolveReferences(JsonNode json) {
    if (json.isTextual() && isReference(json.textValue())) {
      return TextNode.valueOf(secret(json.textValue()));
    }
    if (json.isObject()) {
      ObjectNode copy = ((ObjectNode) json).objectNode();
      for (Map.Entry<String, JsonNode> e : json.properties()) {
        copy.set(e.getKey(), resolveReferences(e.getValue()));
      }
      return copy;
    }
    if (json.isArray()) {
      ArrayNode copy = ((ArrayNode) json).arrayNode();
      json.forEach(e -> copy.add(resolveReferences(e)));
      return copy;
    }
    return json;
  }

  /** {@code text} with every known secret value replaced by {@link #REDACTED}. */
  public String scrub(String text) {
    return known.scrub(text);
  }

  /** {@code json} with known secret values replaced in strings, field names and numbers; the same node if it holds none. */
  public JsonNode scrub(JsonNode json) {
    return known.scrub(json);
  }
}

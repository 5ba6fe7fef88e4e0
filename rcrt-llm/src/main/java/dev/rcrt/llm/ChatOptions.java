package dev.rcrt.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Sampling and output settings of one chat request, as OpenAI chat-completions names them. Every
 * setting is optional: null (or an empty {@code stop}) leaves it out of the request, so the
 * provider's default applies.
 *
 * @param temperature {@code temperature}, 0 to 2
 * @param maxTokens {@code max_tokens}, the most tokens the answer may have; at least 1
 * @param toolChoice {@code tool_choice}: {@code "auto"}, {@code "none"}, {@code "required"} or
 *     {@code {type: "function", function: {name}}}
 * @param responseFormat {@code response_format}: {@code {type: "json_object"}} or {@code {type:
 *     "json_schema", json_schema: {name, schema, strict}}}
 * @param parallelToolCalls {@code parallel_tool_calls}: whether the model may call several tools
 *     in one answer
 * @param seed {@code seed}, for providers that sample deterministically with one
 * @param stop {@code stop} sequences; copied
 */
public record ChatOptions(
    @Nullable Double temperature,
    @Nullable Integer maxTokens,
    @Nullable JsonNode toolChoice,
    @Nullable JsonNode responseFormat,
    @Nullable Boolean parallelToolCalls,
    @Nullable Long seed,
    List<String> stop) {

  /** No settings: every provider default. */
  public static final ChatOptions DEFAULTS = new ChatOptions(null, null, null, null, null, null, List.of());

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException for a temperature outside 0..2, {@code maxTokens < 1}, or a
   *     {@code toolChoice} or {@code responseFormat} of the wrong shape
   */
  public ChatOptions {
    if (temperature != null && (temperature < 0 || temperature > 2)) {
      throw new IllegalArgumentException("temperature must be between 0 and 2, found " + temperature);
    }
    if (maxTokens != null && maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be at least 1, found " + maxTokens);
    }
    if (toolChoice != null && !toolChoice.isTextual() && !toolChoice.path("function").path("name").isTextual()) {
      throw new IllegalArgumentException(
          "toolChoice must be \"auto\", \"none\", \"required\" or {type: \"function\", function: {name}}, found " + toolChoice);
    }
    if (responseFormat != null && !responseFormat.path("type").isTextual()) {
      throw new IllegalArgumentException("responseFormat needs a type (json_object, json_schema, text), found " + responseFormat);
    }
    toolChoice = toolChoice == null ? null : toolChoice.deepCopy();
    responseFormat = responseFormat == null ? null : responseFormat.deepCopy();
    stop = stop == null ? List.of() : List.copyOf(stop);
  }

  /**
   * The settings that are set, under their OpenAI chat-completions names ({@code temperature},
   * {@code max_tokens}, {@code tool_choice}, {@code response_format}, {@code parallel_tool_calls},
   * {@code seed}, {@code stop}): the fields of a request body, and of an agent definition's
   * context ({@link #fromContext} reads them back). A new object each call.
   */
  public ObjectNode toJson() {
    ObjectNode body = RcrtJson.object();
    if (temperature() != null) {
      body.put("temperature", temperature());
    }
    if (maxTokens() != null) {
      body.put("max_tokens", maxTokens());
    }
    if (toolChoice() != null) {
      body.set("tool_choice", toolChoice().deepCopy());
    }
    if (responseFormat() != null) {
      body.set("response_format", responseFormat().deepCopy());
    }
    if (parallelToolCalls() != null) {
      body.put("parallel_tool_calls", parallelToolCalls());
    }
    if (seed() != null) {
      body.put("seed", seed());
    }
    if (!stop().isEmpty()) {
      ArrayNode sequences = body.putArray("stop");
      stop.forEach(sequences::add);
    }
    return body;
  }

  /** A builder starting from no settings. */
  public static Builder builder() {
    return new Builder(DEFAULTS);
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * Reads the settings an RCRT agent definition's context may carry: {@code temperature}, {@code
   * max_tokens}, {@code tool_choice}, {@code response_format}, {@code parallel_tool_calls}, {@code
   * seed}, {@code stop} (a string or an array of strings). Absent fields stay null. A {@code
   * response_format} object without {@code type} is RCRT's own (its example agents'): {@code
   * {schema_name, format, auto_send, include_sources…}} describes the answer record RCRT writes,
   * not the model's output, and is not sent to the model.
   *
   * @param where names the record in messages, e.g. {@code "agent definition 'a'"}
   * @throws ValidationException naming the field when one has the wrong type or range
   */
  public static ChatOptions fromContext(JsonNode context, String where) {
    Builder b = builder();
    try {
      JsonNode t = context.get("temperature");
      if (t != null && !t.isNull()) {
        b.temperature(number(t, "temperature").doubleValue());
      }
      JsonNode max = context.get("max_tokens");
      if (max != null && !max.isNull()) {
        if (!max.canConvertToInt() || !max.isIntegralNumber()) {
          throw new IllegalArgumentException("max_tokens must be a whole number, found " + max);
        }
        b.maxTokens(max.intValue());
      }
      JsonNode seed = context.get("seed");
      if (seed != null && !seed.isNull()) {
        if (!seed.isIntegralNumber()) {
          throw new IllegalArgumentException("seed must be a whole number, found " + seed);
        }
        b.seed(seed.longValue());
      }
      JsonNode parallel = context.get("parallel_tool_calls");
      if (parallel != null && !parallel.isNull()) {
        if (!parallel.isBoolean()) {
          throw new IllegalArgumentException("parallel_tool_calls must be true or false, found " + parallel);
        }
        b.parallelToolCalls(parallel.booleanValue());
      }
      b.stop(strings(context.get("stop")));
      b.toolChoice(nonNull(context.get("tool_choice")));
      JsonNode format = nonNull(context.get("response_format"));
      if (format != null && format.isObject() && !format.has("type")) {
        format = null; // RCRT's own response_format ({schema_name, format, auto_send, include_*}) describes the answer record, not the model's output
      }
      b.responseFormat(format);
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new ValidationException(where + " context: " + e.getMessage());
    }
  }

  private static Number number(JsonNode node, String field) {
    if (!node.isNumber()) {
      throw new IllegalArgumentException(field + " must be a number, found " + node);
    }
    return node.numberValue();
  }

  private static List<String> strings(@Nullable JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node == null || node.isNull()) {
      return out;
    }
    if (node.isTextual()) {
      out.add(node.textValue());
      return out;
    }
    if (!node.isArray()) {
      throw new IllegalArgumentException("stop must be a string or an array of strings, found " + node);
    }
    for (JsonNode s : node) {
      if (!s.isTextual()) {
        throw new IllegalArgumentException("stop must be a string or an array of strings, found " + node);
      }
      out.add(s.textValue());
    }
    return out;
  }

  private static @Nullable JsonNode nonNull(@Nullable JsonNode node) {
    return node == null || node.isNull() ? null : node;
  }

  /** Builder for {@link ChatOptions}. Not thread-safe; {@link #build()} validates. */
  public static final class Builder {
    private @Nullable Double temperature;
    private @Nullable Integer maxTokens;
    private @Nullable JsonNode toolChoice;
    private @Nullable JsonNode responseFormat;
    private @Nullable Boolean parallelToolCalls;
    private @Nullable Long seed;
    private List<String> stop;

    private Builder(ChatOptions from) {
      temperature = from.temperature;
      maxTokens = from.maxTokens;
      toolChoice = from.toolChoice;
      responseFormat = from.responseFormat;
      parallelToolCalls = from.parallelToolCalls;
      seed = from.seed;
      stop = from.stop;
    }

    /** Sampling temperature (OpenAI {@code temperature}, 0 to 2), or null for the model's default. */
    public Builder temperature(@Nullable Double temperature) {
      this.temperature = temperature;
      return this;
    }

    /** The most tokens to generate (OpenAI {@code max_tokens}), or null for the model's default. */
    public Builder maxTokens(@Nullable Integer maxTokens) {
      this.maxTokens = maxTokens;
      return this;
    }

    /** {@code tool_choice} as given (a mode string or a function object); null for the default. */
    public Builder toolChoice(@Nullable JsonNode toolChoice) {
      this.toolChoice = toolChoice;
      return this;
    }

    /** {@code tool_choice}: {@code "auto"}, {@code "none"} or {@code "required"}. */
    public Builder toolChoice(String mode) {
      return toolChoice(RcrtJson.nodes().textNode(Objects.requireNonNull(mode, "mode")));
    }

    /** {@code tool_choice} forcing one function, by the name offered in {@code tools}. */
    public Builder toolChoiceFunction(String functionName) {
      ObjectNode choice = RcrtJson.object();
      choice.put("type", "function");
      choice.putObject("function").put("name", Objects.requireNonNull(functionName, "functionName"));
      return toolChoice(choice);
    }

    /** {@code response_format} as given; null for the default. */
    public Builder responseFormat(@Nullable JsonNode responseFormat) {
      this.responseFormat = responseFormat;
      return this;
    }

    /** {@code response_format: {type: "json_object"}}: the answer is a JSON object. */
    public Builder jsonObject() {
      ObjectNode format = RcrtJson.object();
      format.put("type", "json_object");
      return responseFormat(format);
    }

    /**
     * {@code response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}}:
     * the answer is JSON valid against {@code schema} (OpenAI structured outputs).
     *
     * @param name the schema's name, {@code ^[a-zA-Z0-9_-]{1,64}$}
     */
    public Builder jsonSchema(String name, JsonNode schema) {
      ObjectNode format = RcrtJson.object();
      format.put("type", "json_schema");
      ObjectNode spec = format.putObject("json_schema");
      spec.put("name", Objects.requireNonNull(name, "name"));
      spec.set("schema", Objects.requireNonNull(schema, "schema").deepCopy());
      spec.put("strict", true);
      return responseFormat(format);
    }

    /** OpenAI {@code parallel_tool_calls}: whether one answer may call several tools; null for the default. */
    public Builder parallelToolCalls(@Nullable Boolean parallelToolCalls) {
      this.parallelToolCalls = parallelToolCalls;
      return this;
    }

    /** OpenAI {@code seed}, for providers that sample reproducibly; null for none. */
    public Builder seed(@Nullable Long seed) {
      this.seed = seed;
      return this;
    }

    /** Stop sequences; empty for none. */
    public Builder stop(List<String> stop) {
      this.stop = List.copyOf(stop);
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException as {@link ChatOptions#ChatOptions} does
     */
    public ChatOptions build() {
      return new ChatOptions(temperature, maxTokens, toolChoice, responseFormat, parallelToolCalls, seed, stop);
    }
  }
}

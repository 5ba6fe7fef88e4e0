package dev.rcrt.tools;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.internal.annotated.JavaBinding;

/**
 * The SPI for tool authors: Java code behind a tool of implementation type {@code builtin}.
 *
 * <p>Register a handler with {@link ToolRunner.Builder#handler(String, ToolHandler)} under the
 * tool's name (or its implementation's {@code export}), and publish a tool breadcrumb ({@code
 * tool.definition.v1} or {@code tool.v1}) with the same name so agents can discover it.
 *
 * <p>The runner validates {@code input} against the tool's input schema before calling, and the
 * returned value against its output schema after. A handler may be called from several threads at
 * once and must be thread-safe. It runs on the calling thread; a shared watchdog interrupts that
 * thread when the tool's time limit passes, so honour interruption in long waits. A handler that
 * ignores it runs on until it returns, and its result is then discarded as {@code tool_timeout}.
 */
@FunctionalInterface
public interface ToolHandler {

  /**
   * Runs the tool.
   *
   * @param input the request's input, already valid against the input schema; a copy, so changing
   *     it changes nothing recorded
   * @param context who is calling, the store, and the tool's configuration
   * @return the output, a JSON value (normally an object); never null
   * @throws Exception any failure; the runner records it as an error response with the message.
   *     Throw {@link ToolException} to choose the message the model sees.
   */
  JsonNode execute(JsonNode input, ToolContext context) throws Exception;

  /**
   * A handler in Java types, for those who prefer a lambda to {@link Tool} methods: the input is
   * bound to {@code input} with Jackson (after the runner validated it), {@code fn} is applied, and
   * its result serialised with Jackson. Publish the tool with {@link ToolRunner.Builder#tool}, which
   * also generates its schemas, or register it with {@link ToolRunner.Builder#handler} beside a
   * record of your own.
   *
   * @param input a record or Jackson-bindable class
   * @param output what {@code fn} returns (it documents the shape; the result is serialised as it is)
   */
  static <I, O> ToolHandler typed(Class<I> input, Class<O> output, java.util.function.Function<? super I, ? extends O> fn) {
    java.util.Objects.requireNonNull(output, "output");
    com.fasterxml.jackson.databind.JavaType type = JavaBinding.typeOf(input);
    return (in, ctx) -> JavaBinding.toJson(fn.apply(input.cast(JavaBinding.bind(in, type, ""))));
  }
}

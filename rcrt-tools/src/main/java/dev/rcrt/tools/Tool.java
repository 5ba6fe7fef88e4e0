package dev.rcrt.tools;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a public method a tool: {@link ToolRunner.Builder#tools(Object...)} registers every
 * {@code @Tool} method of the objects it is given and publishes a {@code tool.v1} breadcrumb for
 * each, with input and output JSON Schemas generated from the method's parameters and return type
 * (victools {@code jsonschema-generator} with its Jackson module: primitives, strings, enums,
 * records, lists and maps of them, and Jackson-annotated classes).
 *
 * <p>Parameters are the properties of the tool's input object, named by {@link ToolParam#name()} or,
 * when the class was compiled with {@code -parameters}, by the parameter's own name. The arguments
 * are bound from the input with Jackson after the runner has validated it against the generated
 * schema; the return value is serialised with Jackson ({@code void} returns {@code {}}). A method
 * that throws ends the call as {@code tool_failed} with the exception's message ({@link
 * ToolException} chooses another code). The whole chain applies as to every tool: trust,
 * approval, validation, limits and the breadcrumb trail.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Tool {
  /** The tool's name, as models call it; default the method's name. */
  String name() default "";

  /** What the tool does, for the model; required. */
  String description();

  /** Whether a call waits for approval ({@code requires_approval}); default false. */
  boolean requiresApproval() default false;

  /** The call's time limit in milliseconds ({@code limits.timeout_ms}); 0, the default, for the runner's default. */
  long timeoutMs() default 0;

  /** The tool's category ({@code tool_categories} of agents select by it); default none. */
  String category() default "";
}

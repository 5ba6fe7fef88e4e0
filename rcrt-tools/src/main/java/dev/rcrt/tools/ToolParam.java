package dev.rcrt.tools;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Describes a parameter of a {@link Tool} method: its property in the tool's input. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface ToolParam {
  /** The property's name; default the parameter's name (which needs {@code javac -parameters}). */
  String name() default "";

  /** What the parameter means, for the model; default none. */
  String description() default "";

  /** Whether the input must carry it; default true. */
  boolean required() default true;
}

package dev.rcrt.tools.internal.annotated;

import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import java.lang.reflect.Type;

/**
 * Java values from a tool's validated JSON input and back, with Jackson (its annotations honoured,
 * unknown properties ignored: the schema already said what may come). Thread-safe.
 */
public final class JavaBinding {
  private static final ObjectMapper MAPPER = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private JavaBinding() {}

  /** The Jackson type of {@code type}. */
  public static JavaType typeOf(Type type) {
    return MAPPER.constructType(type);
  }

  /**
   * {@code value} as a {@code type}.
   *
   * @param name the input's property, for the error ({@code ""} for the whole input)
   * @throws ToolException {@code tool_input_invalid} naming where and why when it cannot be read so
   */
  public static Object bind(JsonNode value, JavaType type, String name) {
    try {
      return MAPPER.convertValue(value, type);
    } catch (IllegalArgumentException e) {
      throw new ToolException(ToolErrorCode.TOOL_INPUT_INVALID, refusal(name, type, e));
    }
  }

  /**
   * Why a value the input schema let through cannot be taken, for the model: where (a JSON Pointer
   * into the input) and what fits there, in JSON Schema's words. No Java type, parser location or
   * value (it may be a resolved secret) is named.
   */
  private static String refusal(String name, JavaType type, IllegalArgumentException e) {
    StringBuilder at = new StringBuilder("/").append(name);
    Class<?> target = type.getRawClass();
    if (e.getCause() instanceof JsonMappingException mapping) {
      for (JsonMappingException.Reference r : mapping.getPath()) {
        at.append('/').append(r.getFieldName() != null ? r.getFieldName() : r.getIndex() >= 0 ? String.valueOf(r.getIndex()) : "-");
      }
      if (mapping instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
        target = mismatch.getTargetType();
      }
    } else if (e.getCause() instanceof InputCoercionException coercion && coercion.getTargetType() != null) {
      target = coercion.getTargetType();
    }
    return "input " + at + " has a value this tool cannot take: it must be " + expected(target) + "; send a value that fits there";
  }

  /** What a value of {@code type} is, as JSON: a range for Java's bounded numbers, else the type's JSON Schema. */
  private static String expected(Class<?> type) {
    if (type == int.class || type == Integer.class) {
      return "an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE;
    }
    if (type == long.class || type == Long.class) {
      return "an integer from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE;
    }
    if (type == short.class || type == Short.class) {
      return "an integer from " + Short.MIN_VALUE + " to " + Short.MAX_VALUE;
    }
    if (type == byte.class || type == Byte.class) {
      return "an integer from " + Byte.MIN_VALUE + " to " + Byte.MAX_VALUE;
    }
    if (type == char.class || type == Character.class) {
      return "a string of one character";
    }
    ObjectNode schema = JavaSchemas.of(type);
    schema.remove("definitions");
    return "a value of the JSON Schema " + RcrtJson.write(schema);
  }

  /** {@code result} as JSON. */
  public static JsonNode toJson(Object result) {
    return MAPPER.valueToTree(result);
  }
}

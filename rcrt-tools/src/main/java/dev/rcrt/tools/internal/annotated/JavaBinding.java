package dev.rcrt.tools.internal.annotated;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
      throw new ToolException(ToolErrorCode.TOOL_INPUT_INVALID, "input /" + name + " cannot be read as " + type.toCanonical() + ": " + e.getMessage());
    }
  }

  /** {@code result} as JSON. */
  public static JsonNode toJson(Object result) {
    return MAPPER.valueToTree(result);
  }
}

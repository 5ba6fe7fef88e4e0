package dev.rcrt.tools.internal.builtin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import java.math.BigDecimal;
import java.util.List;
import net.objecthunter.exp4j.ExpressionBuilder;
import net.objecthunter.exp4j.function.Function;

/**
 * {@code calculator}: {@code {expression}} → {@code {result, expression, formatted}}.
 *
 * <p>Arithmetic only, evaluated by exp4j: {@code + - * / % ^}, parentheses, {@code pi}, {@code e},
 * exp4j's functions ({@code sqrt, cbrt, abs, log, log10, sin, …}) plus {@code pow(a, b)}, {@code
 * min(a, b)}, {@code max(a, b)} and {@code round(a)}. Nothing is ever evaluated as code.
 */
public final class Calculator implements ToolHandler {
  private static final List<Function> EXTRA =
      List.of(
          new Function("pow", 2) {
            @Override
            public double apply(double... args) {
              return Math.pow(args[0], args[1]);
            }
          },
          new Function("min", 2) {
            @Override
            public double apply(double... args) {
              return Math.min(args[0], args[1]);
            }
          },
          new Function("max", 2) {
            @Override
            public double apply(double... args) {
              return Math.max(args[0], args[1]);
            }
          },
          new Function("round", 1) {
            @Override
            public double apply(double... args) {
              return Math.round(args[0]);
            }
          });

  @Override
  public JsonNode execute(JsonNode input, ToolContext context) {
    String expression = input.path("expression").asText().trim();
    double value;
    try {
      value =
          new ExpressionBuilder(normalise(expression)).functions(EXTRA).build().evaluate();
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new ToolException(
          ToolErrorCode.TOOL_FAILED,
          "calculator cannot evaluate '" + expression + "': " + e.getMessage()
              + "; use numbers, + - * / % ^, parentheses and functions such as sqrt(x) or pow(a, b)", e);
    }
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      throw new ToolException(
          ToolErrorCode.TOOL_FAILED, "calculator: '" + expression + "' has no finite result (" + value + ")");
    }
    ObjectNode out = RcrtJson.object();
    BigDecimal exact = BigDecimal.valueOf(value).stripTrailingZeros();
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      out.put("result", (long) value);
    } else {
      out.put("result", value);
    }
    out.put("expression", expression);
    out.put("formatted", expression + " = " + (Math.abs(value) < 1e15 ? exact.toPlainString() : exact.toString()));
    return out;
  }

  /** Accepts the multiplication and division signs people type. */
  private static String normalise(String expression) {
    return expression.replace('×', '*').replace('÷', '/').replace("**", "^");
  }
}

package dev.rcrt.core.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.MatchOp;
import org.jspecify.annotations.Nullable;

/** Evaluates one {@link ContextMatch} against a context; the semantics are those of {@link MatchOp}. */
public final class ContextMatcher {
  private ContextMatcher() {}

  /** Whether {@code context} meets the condition. An indefinite path matches if any value does. */
  public static boolean test(ContextMatch match, JsonNode context) {
    JsonNode found = ContextPaths.read(match.path(), context);
    if (found != null && found.isArray() && !ContextPaths.isDefinite(match.path())) {
      if (match.op() == MatchOp.EXISTS) {
        return found.isEmpty() != match.value().asBoolean();
      }
      for (JsonNode each : found) {
        if (test(match.op(), each, match.value())) {
          return true;
        }
      }
      return match.op() == MatchOp.NE && found.isEmpty();
    }
    return test(match.op(), found, match.value());
  }

  private static boolean test(MatchOp op, @Nullable JsonNode actual, JsonNode expected) {
    if (actual == null || actual.isNull()) {
      return switch (op) {
        case EXISTS -> !expected.asBoolean();
        case NE -> true;
        default -> false;
      };
    }
    return switch (op) {
      case EXISTS -> expected.asBoolean();
      case EQ -> same(actual, expected);
      case NE -> !same(actual, expected);
      case GT, GTE, LT, LTE -> ordered(op, actual, expected);
      case CONTAINS -> contains(actual, expected);
      case CONTAINS_ANY -> containsAny(actual, expected);
    };
  }

  /** Numbers numerically, strings lexically; false for any other pair of types. */
  private static boolean ordered(MatchOp op, JsonNode a, JsonNode b) {
    int c;
    if (a.isNumber() && b.isNumber()) {
      c = a.decimalValue().compareTo(b.decimalValue());
    } else if (a.isTextual() && b.isTextual()) {
      c = a.textValue().compareTo(b.textValue());
    } else {
      return false;
    }
    return switch (op) {
      case GT -> c > 0;
      case GTE -> c >= 0;
      case LT -> c < 0;
      default -> c <= 0;
    };
  }

  private static boolean same(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private static boolean contains(JsonNode actual, JsonNode expected) {
    if (actual.isTextual() && expected.isTextual()) {
      return actual.textValue().contains(expected.textValue());
    }
    if (actual.isArray()) {
      for (JsonNode element : actual) {
        if (same(element, expected)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean containsAny(JsonNode actual, JsonNode expected) {
    for (JsonNode wanted : expected) {
      if (actual.isArray() ? contains(actual, wanted) : same(actual, wanted)) {
        return true;
      }
    }
    return false;
  }
}

package dev.rcrt.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Case-insensitive parsing shared by the wire enums. */
final class WireEnums {
  private WireEnums() {}

  static <E extends Enum<E>> E parse(Class<E> type, String field, String value) {
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equalsIgnoreCase(value)) {
        return constant;
      }
    }
    String accepted =
        Arrays.stream(type.getEnumConstants())
            .map(e -> e.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(", "));
    throw new ValidationException(
        field + ": unknown value '" + value + "'; use one of " + accepted);
  }
}

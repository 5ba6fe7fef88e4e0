package dev.rcrt.tools.internal.builtin;

import java.math.BigDecimal;

final class BuiltinText {
  private BuiltinText() {}

  /** {@code 2.0} as {@code "2"}, {@code 0.5} as {@code "0.5"}. */
  static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }
}

package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How sensitive a breadcrumb's content is. RCRT writes {@code "Low"}, {@code "Pii"},
 * {@code "Secret"} and accepts lowercase; both are read, the capitalised form is written.
 */
public enum Sensitivity {
  /** Nothing sensitive; the default. */
  LOW("Low"),
  /** Personal data. */
  PII("Pii"),
  /** Secret: JavaScript tools' {@code context.api} never hands out its context. */
  SECRET("Secret");

  private final String wire;

  Sensitivity(String wire) {
    this.wire = wire;
  }

  /** The RCRT wire spelling, capitalised. */
  @JsonValue
  public String wire() {
    return wire;
  }

  /**
   * Reads either spelling, case-insensitively.
   *
   * @throws ValidationException for any other value, listing the accepted ones
   */
  @JsonCreator
  public static Sensitivity fromWire(String value) {
    return WireEnums.parse(Sensitivity.class, "sensitivity", value);
  }
}

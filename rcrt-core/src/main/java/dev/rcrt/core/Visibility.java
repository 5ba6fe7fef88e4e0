package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Who may read a breadcrumb. RCRT writes these capitalised ({@code "Public"}) and accepts them in
 * lowercase; both spellings are read, the capitalised one is written.
 */
public enum Visibility {
  /** Anyone. */
  PUBLIC("Public"),
  /** The owner's team; the default. */
  TEAM("Team"),
  /** Only its owner. */
  PRIVATE("Private");

  private final String wire;

  Visibility(String wire) {
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
  public static Visibility fromWire(String value) {
    return WireEnums.parse(Visibility.class, "visibility", value);
  }
}

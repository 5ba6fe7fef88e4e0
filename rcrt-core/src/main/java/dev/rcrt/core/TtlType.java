package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** RCRT's {@code ttl_type}: how a breadcrumb expires. Written lowercase, read in any case. */
public enum TtlType {
  NEVER,
  DATETIME,
  DURATION,
  USAGE,
  HYBRID;

  /** The RCRT wire spelling, lowercase. */
  @JsonValue
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Reads a wire value, case-insensitively.
   *
   * @throws ValidationException for an unknown value, listing the accepted ones
   */
  @JsonCreator
  public static TtlType fromWire(String value) {
    return WireEnums.parse(TtlType.class, "ttl_type", value);
  }
}

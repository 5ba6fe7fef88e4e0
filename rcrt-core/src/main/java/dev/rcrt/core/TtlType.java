package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** RCRT's {@code ttl_type}: how a breadcrumb expires. Written lowercase, read in any case. */
public enum TtlType {
  /** Never expires. */
  NEVER,
  /** Expires at {@code ttl}. */
  DATETIME,
  /** Expires at {@code ttl} if given, else {@code ttl_config.duration} after it was created. */
  DURATION,
  /** Expires after {@code ttl_config.max_reads} reads. */
  USAGE,
  /** Expires at whichever of its time and its {@code max_reads} comes first. */
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

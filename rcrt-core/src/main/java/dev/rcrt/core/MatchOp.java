package dev.rcrt.core;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * The operators of an RCRT selector's {@code context_match} entry.
 *
 * <ul>
 *   <li>{@code eq}, {@code ne}: JSON equality; numbers compare numerically ({@code 1 == 1.0}).
 *       {@code ne} is true when the path is missing.
 *   <li>{@code gt}, {@code gte}, {@code lt}, {@code lte}: numbers numerically, strings lexically;
 *       false for any other pair of types.
 *   <li>{@code contains}: a string contains the value as a substring, or an array contains an
 *       element equal to the value.
 *   <li>{@code contains_any}: the array at the path (a scalar counts as a one-element array) shares
 *       at least one element with the array value.
 *   <li>{@code exists}: value {@code true} matches a present, non-null value; {@code false} the
 *       opposite.
 * </ul>
 */
public enum MatchOp {
  /** {@code eq}: equal to the value. */
  EQ,
  /** {@code ne}: not equal to the value. */
  NE,
  /** {@code gt}: greater than the value. */
  GT,
  /** {@code gte}: greater than or equal to the value. */
  GTE,
  /** {@code lt}: less than the value. */
  LT,
  /** {@code lte}: less than or equal to the value. */
  LTE,
  /** {@code contains}. */
  CONTAINS,
  /** {@code contains_any}. */
  CONTAINS_ANY,
  /** {@code exists}. */
  EXISTS;

  /** The wire spelling, for example {@code "contains_any"}. */
  @JsonValue
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Reads the wire spelling, case-insensitively.
   *
   * @throws ValidationException for an unknown operator, listing the known ones
   */
  @JsonCreator
  public static MatchOp fromWire(String op) {
    return WireEnums.parse(MatchOp.class, "context_match op", op);
  }
}

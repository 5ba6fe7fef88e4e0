package dev.rcrt.core.internal.hints;

import com.fasterxml.jackson.databind.JsonNode;

/** One compiled {@code transform} rule: context in, value out. Thread-safe. */
interface Rule {
  /**
   * @param context the record's full context
   * @throws Exception any engine failure; the caller names the rule and wraps it
   */
  JsonNode apply(JsonNode context) throws Exception;
}

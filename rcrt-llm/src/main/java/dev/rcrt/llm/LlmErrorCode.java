package dev.rcrt.llm;

import dev.rcrt.core.ErrorCode;
/**
 * The codes of {@link LlmException}, each with whether it is usually worth asking again. An
 * exception may say otherwise for its case (a stream that already showed text is never
 * retriable; an HTTP error is retriable only for 429 and 5xx): {@link LlmException#isRetriable()}
 * is what decides.
 */
public enum LlmErrorCode implements ErrorCode {
  /** A non-2xx status ({@link LlmException#status()}); retriable for 429 and 5xx. */
  LLM_HTTP_ERROR("llm_http_error", false),
  /** A 2xx answer carrying an {@code error} object. */
  LLM_PROVIDER_ERROR("llm_provider_error", false),
  /** An answer that is not a chat completion (or a stream cut off, or past its size cap). */
  LLM_BAD_RESPONSE("llm_bad_response", false),
  /** No answer within the request timeout, or a stream idle or running past its limits. */
  LLM_TIMEOUT("llm_timeout", true),
  /** The connection failed or broke. */
  LLM_UNREACHABLE("llm_unreachable", true),
  /** The calling thread was interrupted while waiting; its interrupt status is set again. */
  LLM_CANCELLED("llm_cancelled", false),
  /** The client cannot be built as configured (from {@code build()}, before any request). */
  LLM_CONFIG_INVALID("llm_config_invalid", false);

  private final String code;
  private final boolean retriable;

  LlmErrorCode(String code, boolean retriable) {
    this.code = code;
    this.retriable = retriable;
  }

  /** The wire code, such as {@code llm_timeout}. */
  @Override
  public String code() {
    return code;
  }

  /** Whether asking again is usually worth it; see the class comment. */
  @Override
  public boolean retriable() {
    return retriable;
  }

  @Override
  public String toString() {
    return code;
  }
}

/** The chat-model SPI ({@link dev.rcrt.llm.LlmClient}) and the OpenAI-compatible client. */
module dev.rcrt.llm {
  requires transitive dev.rcrt.core;

  exports dev.rcrt.llm;
}

/** LangChain4j models as an {@link dev.rcrt.llm.LlmClient}, and the store's tools as a LangChain4j tool provider. */
module dev.rcrt.langchain4j {
  requires transitive dev.rcrt.llm;
  requires transitive dev.rcrt.tools;
  requires transitive langchain4j; // ToolProvider (AiServices)
  requires transitive langchain4j.core;

  exports dev.rcrt.langchain4j;
}

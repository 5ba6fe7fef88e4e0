package dev.rcrt.spring.boot.autoconfigure;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.rcrt.langchain4j.LangChain4jLlmClient;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.llm.OpenAiCompatibleLlmClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The model client, when the application defines no {@link LlmClient}: its LangChain4j {@code
 * ChatModel} bean bridged (imported first), else the OpenAI-compatible endpoint of {@code
 * rcrt.model.base-url}. With neither there is no model client, and so no agent executor.
 */
final class ModelConfigurations {
  private ModelConfigurations() {}

  /** The application's LangChain4j model (and its streaming model, when it has one). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({LangChain4jLlmClient.class, ChatModel.class})
  @ConditionalOnBean(ChatModel.class)
  static class LangChain4j {
    @Bean
    @ConditionalOnMissingBean(LlmClient.class)
    LlmClient rcrtLlmClient(ChatModel model, ObjectProvider<StreamingChatModel> streaming, RcrtProperties properties) {
      StreamingChatModel s = streaming.getIfUnique();
      LangChain4jLlmClient client = s != null ? LangChain4jLlmClient.of(model, s) : LangChain4jLlmClient.of(model);
      String name = properties.getModel().getModel();
      return name != null ? client.withDefaultModel(name) : client;
    }
  }

  /** {@code rcrt.model.*}: an OpenAI-compatible chat-completions endpoint. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "rcrt.model", name = "base-url")
  static class OpenAiCompatible {
    @Bean
    @ConditionalOnMissingBean(LlmClient.class)
    LlmClient rcrtLlmClient(RcrtProperties properties) {
      RcrtProperties.Model m = properties.getModel();
      OpenAiCompatibleLlmClient.Builder b = OpenAiCompatibleLlmClient.builder(String.valueOf(m.getBaseUrl()))
          .apiKey(m.getApiKey())
          .defaultModel(m.getModel())
          .requestTimeout(m.getRequestTimeout())
          .maxRetries(m.getMaxRetries());
      m.getHeaders().forEach(b::header);
      return b.build();
    }
  }
}

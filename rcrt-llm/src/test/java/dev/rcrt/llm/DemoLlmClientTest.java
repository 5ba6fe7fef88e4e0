package dev.rcrt.llm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DemoLlmClientTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "what is 17 * 23?|17 * 23",
        "compute (2 + 3) * 4 please|(2 + 3) * 4",
        "what's sqrt(16) + 1|sqrt(16) + 1",
        "how much is 10 / 4|10 / 4",
      })
  void findsTheArithmeticInASentence(String text, String expression) {
    assertThat(DemoLlmClient.arithmetic(text)).isEqualTo(expression);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"hello there", "I have 3 cats", "version 2", "What do 3 copies of BOOK-7 cost?", "is order A-12 late?"})
  void leavesSentencesWithoutArithmeticAlone(String text) {
    assertThat(DemoLlmClient.arithmetic(text)).isNull();
  }
}

package dev.rcrt.embeddings.minilm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.EmbeddingException;
import dev.rcrt.core.spi.Vectors;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MiniLmEmbeddingsTest {
  private static MiniLmEmbeddings minilm;

  @BeforeAll
  static void load() {
    minilm = MiniLmEmbeddings.create();
  }

  @AfterAll
  static void close() {
    minilm.close();
  }

  private static float cosine(String a, String b) {
    List<float[]> v = minilm.embed(List.of(a, b));
    return Vectors.dot(Vectors.unit(v.get(0), "m"), Vectors.unit(v.get(1), "m"));
  }

  @Test
  void embedsInProcessWithRcrtsModelAndDimensions() {
    List<float[]> vectors = minilm.embed(List.of("What is 17 * 23?", "", "the weather in Oslo"));
    assertThat(vectors).hasSize(3).allSatisfy(v -> assertThat(v).hasSize(384));
    double norm = 0;
    for (float x : vectors.get(0)) {
      norm += x * x;
    }
    assertThat(Math.sqrt(norm)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.01));
    assertThat(minilm.model()).isEqualTo("all-minilm-l6-v2-q");
  }

  @Test
  void textsThatMeanTheSameAreNearerThanTextsThatShareWords() {
    // no word in common, same meaning
    float meaning = cosine("How many yen is 20 euros?", "Convert an amount of money between currencies");
    // common words, another meaning
    float words = cosine("How many yen is 20 euros?", "How many days is it until the 20th?");
    assertThat(meaning).isGreaterThan(words);
  }

  @Test
  void aClosedModelSaysSo() {
    MiniLmEmbeddings other = MiniLmEmbeddings.create();
    other.close();
    assertThatThrownBy(() -> other.embed(List.of("x")))
        .isInstanceOf(EmbeddingException.class)
        .hasMessageContaining("closed");
  }
}

package dev.rcrt.agent.internal.loop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.EmbeddingProvider;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.embeddings.minilm.MiniLmEmbeddings;
import dev.rcrt.testing.MeaningSet;
import dev.rcrt.tools.ToolDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tool selection under a budget, measured: a catalog of 1,000 tools (the 55 labelled topics of
 * {@link MeaningSet} and 945 generated distractors), each topic's question asked with a budget of
 * 2,000 tokens, and whether the right tool is offered, by BM25 alone and by the hybrid of meaning
 * (RCRT's MiniLM, in process) and words. Prints the report; requires the hybrid to offer the right
 * tool for at least 90% of the questions and to beat BM25.
 */
class ToolSelectionQualityTest {
  private static final int BUDGET = 2_000;
  private static final String MODEL = "gpt-4o-mini";
  private static MiniLmEmbeddings minilm;
  private static List<ToolDefinition> catalog;

  @BeforeAll
  static void catalog() {
    minilm = MiniLmEmbeddings.create();
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    List<MeaningSet.Topic> all = new ArrayList<>(MeaningSet.topics());
    all.addAll(MeaningSet.distractors(1_000 - all.size()));
    Collections.shuffle(all, new java.util.Random(7));
    List<ToolDefinition> tools = new ArrayList<>();
    for (MeaningSet.Topic t : all) {
      Breadcrumb b = store.create(BreadcrumbCreate.builder("tool.v1", t.tool()).context(RcrtJson.parse("""
          {"name":"%s","description":"%s","input_schema":{"type":"object","properties":{"text":{"type":"string"}}},
           "implementation":{"type":"builtin"}}""".formatted(t.tool(), t.description()))).build());
      tools.add(ToolDefinition.fromBreadcrumb(b));
    }
    catalog = List.copyOf(tools);
  }

  @AfterAll
  static void close() {
    minilm.close();
  }

  /** The share of questions whose right tool is offered within the budget, ranked with {@code meaning} (null: BM25 alone). */
  private static double recall(ToolBudget budget, EmbeddingProvider meaning) {
    int offered = 0;
    for (MeaningSet.Topic t : MeaningSet.topics()) {
      List<ToolDefinition> chosen = budget.select(catalog, t.question(), BUDGET, MODEL, true, meaning);
      assertThat(chosen.size()).as("the budget keeps far fewer than the catalog").isLessThan(100);
      if (chosen.stream().anyMatch(d -> d.name().equals(t.tool()))) {
        offered++;
      }
    }
    return (double) offered / MeaningSet.topics().size();
  }

  @Test
  void theHybridOffersTheRightToolForAtLeastNinetyPercentOfQuestionsAndBeatsBm25() {
    ToolBudget budget = new ToolBudget();
    double words = recall(budget, null);
    double hybrid = recall(budget, minilm);
    int kept = budget.select(catalog, "What is 17 * 23?", BUDGET, MODEL, true, minilm).size();
    System.out.printf(
        "tool selection, %d questions, %d tools, budget %d tokens (about %d tools offered): right tool offered: BM25 alone %.0f%%, hybrid %.0f%%%n",
        MeaningSet.topics().size(), catalog.size(), BUDGET, kept, 100 * words, 100 * hybrid);
    assertThat(hybrid).isGreaterThanOrEqualTo(0.90).isGreaterThan(words);
  }

  @Test
  void aToolThatMatchesByMeaningIsNotCrowdedOutByToolsSharingCommonWords() {
    ToolBudget budget = new ToolBudget();
    // every distractor shares "the", "a", "in", "and", "who" with this question; the right tool shares none of its words
    String question = "Who can tell me how many yen I get for 20 euros in the bank?";
    double[] scores = budget.relevance(catalog, question, minilm);
    int right = java.util.stream.IntStream.range(0, catalog.size()).filter(i -> catalog.get(i).name().equals("currency_convert")).findFirst().orElseThrow();
    long above = java.util.Arrays.stream(scores).filter(s -> s > scores[right]).count();
    assertThat(above).as("tools ranked above currency_convert").isLessThan(3);
  }
}

package dev.rcrt.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.MatchOp;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same random records and random selectors against the in-memory store and PostgreSQL: every
 * result list, order included, must be identical. Selectors use every operator, nested paths,
 * numbers against strings, arrays, and fields that are missing or null.
 */
class SelectorDifferentialTest {
  private static final long SEED = 20261122L;
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String[] SCHEMAS = {"note.v1", "task.v1", "tool.v1", "misc.v1"};
  private static final String[] TAGS = {"a", "b", "c", "workspace:x", "session:1", "session:2"};
  private static final String[] PATHS = {"$.n", "$.s", "$.flag", "$.nested.n", "$.nested.s", "$.items", "$.missing", "n", "nested.s",
      "$.items[0]", "$.list[*].k"};
  private static final String[] WORDS = {"alpha", "beta", "1", "2.5", "", "Alpha", "10"};

  private static PostgresBreadcrumbStore postgres;
  private static final InMemoryBreadcrumbStore memory = new InMemoryBreadcrumbStore();

  @BeforeAll
  static void fill() {
    postgres = PostgresBreadcrumbStore.builder(TestPostgres.dataSource()).schema(TestPostgres.freshSchema()).build();
    Random random = new Random(SEED);
    List<String> titles = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      BreadcrumbCreate create = BreadcrumbCreate.builder(SCHEMAS[random.nextInt(SCHEMAS.length)], "r" + i)
          .tags(tags(random)).context(context(random)).build();
      memory.create(create);
      postgres.create(create);
      titles.add("r" + i);
    }
    for (int i = 0; i < 60; i++) { // updates move records to the front and change their tags and context
      String title = titles.get(random.nextInt(titles.size()));
      BreadcrumbUpdate update = BreadcrumbUpdate.ofContext(context(random)).withTags(tags(random));
      for (BreadcrumbStore store : List.of(memory, postgres)) {
        Breadcrumb b = byTitle(store, title);
        store.update(b.id(), b.version(), update);
      }
    }
  }

  @AfterAll
  static void close() {
    postgres.close();
  }

  @Test
  void everyRandomSelectorFindsTheSameRecordsInTheSameOrder() {
    Random random = new Random(SEED + 1);
    int nonEmpty = 0;
    for (int i = 0; i < 400; i++) {
      Selector selector = selector(random);
      int limit = 1 + random.nextInt(random.nextBoolean() ? 5 : 500);
      int offset = random.nextInt(4) == 0 ? random.nextInt(20) : 0;
      List<String> expected = titles(memory.search(selector, limit, offset));
      List<String> actual = titles(postgres.search(selector, limit, offset));
      assertThat(actual).as("selector %s limit %d offset %d", RcrtJson.write(RcrtJson.toTree(selector)), limit, offset)
          .isEqualTo(expected);
      nonEmpty += expected.isEmpty() ? 0 : 1;
    }
    assertThat(nonEmpty).as("selectors that found something (the test must not pass on empty results)").isGreaterThan(100);
  }

  private static Breadcrumb byTitle(BreadcrumbStore store, String title) {
    return store.search(Selector.all(), 1000, 0).stream().filter(b -> b.title().equals(title)).findFirst().orElseThrow();
  }

  private static List<String> titles(List<Breadcrumb> found) {
    return found.stream().map(Breadcrumb::title).toList();
  }

  private static List<String> tags(Random random) {
    List<String> tags = new ArrayList<>();
    for (String t : TAGS) {
      if (random.nextInt(3) == 0) {
        tags.add(t);
      }
    }
    return tags;
  }

  private static ObjectNode context(Random random) {
    ObjectNode c = JSON.objectNode();
    maybe(random, () -> c.set("n", number(random)));
    maybe(random, () -> c.set("s", scalar(random)));
    maybe(random, () -> c.put("flag", random.nextBoolean()));
    maybe(random, () -> c.set("nested", JSON.objectNode().<ObjectNode>set("n", number(random)).set("s", scalar(random))));
    maybe(random, () -> {
      ArrayNode items = c.putArray("items");
      for (int i = random.nextInt(4); i > 0; i--) {
        items.add(scalar(random));
      }
    });
    maybe(random, () -> {
      ArrayNode list = c.putArray("list");
      for (int i = random.nextInt(3); i > 0; i--) {
        list.addObject().set("k", scalar(random));
      }
    });
    maybe(random, () -> c.putNull("missing"));
    if (random.nextInt(5) == 0) {
      c.set("n", JSON.arrayNode().add(number(random))); // a path that is sometimes an array
    }
    return c;
  }

  private static Selector selector(Random random) {
    List<String> any = new ArrayList<>();
    List<String> all = new ArrayList<>();
    if (random.nextInt(3) == 0) {
      any.add(TAGS[random.nextInt(TAGS.length)]);
      any.add(TAGS[random.nextInt(TAGS.length)]);
    }
    if (random.nextInt(3) == 0) {
      all.add(TAGS[random.nextInt(TAGS.length)]);
    }
    String schema = random.nextInt(3) == 0 ? SCHEMAS[random.nextInt(SCHEMAS.length)] : null;
    List<ContextMatch> matches = new ArrayList<>();
    for (int i = random.nextInt(3); i > 0; i--) {
      matches.add(match(random));
    }
    return new Selector(any, all, schema, matches);
  }

  private static ContextMatch match(Random random) {
    MatchOp op = MatchOp.values()[random.nextInt(MatchOp.values().length)];
    String path = PATHS[random.nextInt(PATHS.length)];
    JsonNode value = switch (op) {
      case EXISTS -> JSON.booleanNode(random.nextBoolean());
      case CONTAINS_ANY -> JSON.arrayNode().add(scalar(random)).add(number(random));
      default -> random.nextBoolean() ? number(random) : scalar(random);
    };
    return new ContextMatch(path, op, value);
  }

  private static JsonNode number(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> JSON.numberNode(random.nextInt(5));
      case 1 -> JSON.numberNode(random.nextInt(5) + 0.5);
      case 2 -> JSON.numberNode(new java.math.BigDecimal(random.nextInt(3) + ".0"));
      default -> JSON.numberNode(-random.nextInt(3));
    };
  }

  private static JsonNode scalar(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> JSON.textNode(WORDS[random.nextInt(WORDS.length)]);
      case 1 -> number(random);
      case 2 -> JSON.booleanNode(random.nextBoolean());
      default -> JSON.textNode(String.valueOf(random.nextInt(3)));
    };
  }

  private static void maybe(Random random, Runnable put) {
    if (random.nextInt(4) != 0) {
      put.run();
    }
  }
}

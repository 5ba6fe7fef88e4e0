package dev.rcrt.postgres.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.MatchOp;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The part of a selector PostgreSQL answers: {@code schema_name} (B-tree), {@code all_tags} and
 * {@code any_tags} (GIN on the tags array), {@code eq} on plain property paths with a scalar value
 * (GIN {@code jsonb_path_ops}: {@code context @> {...}}), and, on plain paths, {@code exists: true}
 * and number comparisons as SQL/JSON path predicates ({@code context @? '$.a ? (@ > 3)'}). The other
 * conditions ({@code ne}, {@code contains}, {@code contains_any}, string comparisons, wildcard and
 * index paths) are left to Java.
 *
 * <p>The SQL only narrows: it admits every row the selector matches and perhaps a few more (jsonb
 * containment also admits an array holding the value), so the store still applies {@link
 * Selector#matches} to each row. Results can therefore never differ from the in-memory store's;
 * the narrowing decides only how many rows are read.
 */
final class SqlSelector {
  private static final java.util.Map<MatchOp, String> COMPARISONS =
      java.util.Map.of(MatchOp.GT, ">", MatchOp.GTE, ">=", MatchOp.LT, "<", MatchOp.LTE, "<=");
  private static final Pattern PLAIN_PATH = Pattern.compile("(\\$\\.)?[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");

  final String where;
  final List<Object> parameters;

  private SqlSelector(String where, List<Object> parameters) {
    this.where = where;
    this.parameters = parameters;
  }

  static SqlSelector of(Selector selector) {
    StringBuilder where = new StringBuilder("TRUE");
    List<Object> parameters = new ArrayList<>();
    if (selector.schemaName() != null) {
      where.append(" AND schema_name = ?");
      parameters.add(selector.schemaName());
    }
    if (!selector.allTags().isEmpty()) {
      where.append(" AND tags @> ?");
      parameters.add(selector.allTags().toArray(String[]::new));
    }
    if (!selector.anyTags().isEmpty()) {
      where.append(" AND tags && ?");
      parameters.add(selector.anyTags().toArray(String[]::new));
    }
    ObjectNode contained = RcrtJson.object();
    for (ContextMatch match : selector.contextMatch()) {
      if (!PLAIN_PATH.matcher(match.path()).matches()) {
        continue;
      }
      String path = match.path().startsWith("$.") ? match.path().substring(2) : match.path();
      if (match.op() == MatchOp.EQ && isScalar(match.value())) {
        put(contained, path, match.value());
      } else if (match.op() == MatchOp.EXISTS && match.value().asBoolean()) {
        where.append(" AND context @?? ?::jsonpath"); // JDBC's ?? is the operator @?; present, null included: a superset
        parameters.add("$." + path);
      } else if (COMPARISONS.containsKey(match.op()) && match.value().isNumber()) {
        // lax mode also looks inside arrays and compares only numbers with numbers: a superset again
        where.append(" AND context @?? ?::jsonpath");
        parameters.add("$." + path + " ? (@ " + COMPARISONS.get(match.op()) + " " + match.value().decimalValue().toPlainString() + ")");
      }
    }
    if (!contained.isEmpty()) {
      where.append(" AND context @> ?::jsonb");
      parameters.add(RcrtJson.write(contained));
    }
    return new SqlSelector(where.toString(), parameters);
  }

  private static boolean isScalar(JsonNode value) {
    return value.isTextual() || value.isNumber() || value.isBoolean();
  }

  /** Sets {@code a.b.c = value} in {@code root}; two conditions on one path keep the first (still a superset). */
  private static void put(ObjectNode root, String path, JsonNode value) {
    String[] parts = path.split("\\.");
    ObjectNode node = root;
    for (int i = 0; i < parts.length - 1; i++) {
      JsonNode next = node.get(parts[i]);
      if (next != null && !next.isObject()) {
        return;
      }
      node = next == null ? node.putObject(parts[i]) : (ObjectNode) next;
    }
    if (!node.has(parts[parts.length - 1])) {
      node.set(parts[parts.length - 1], value);
    }
  }
}

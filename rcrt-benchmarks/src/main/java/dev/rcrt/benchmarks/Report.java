package dev.rcrt.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Prints one line per figure from a JMH JSON result file: median, p99 and mean with its error. */
public final class Report {
  private Report() {}

  public static void main(String[] args) throws Exception {
    JsonNode results = RcrtJson.parse(Files.readString(Path.of(args[0])));
    for (JsonNode r : results) {
      String name = r.get("benchmark").asText().replace("dev.rcrt.benchmarks.", "");
      StringBuilder params = new StringBuilder();
      r.path("params").properties().forEach(p -> params.append(' ').append(p.getKey()).append('=').append(p.getValue().asText()));
      JsonNode m = r.get("primaryMetric");
      String unit = m.get("scoreUnit").asText();
      JsonNode pct = m.path("scorePercentiles");
      System.out.printf(
          Locale.ROOT,
          "%-55s median %10.2f %s   p99 %10.2f %s   mean %10.2f ± %.2f %s%n",
          name + params,
          pct.path("50.0").asDouble(),
          unit,
          pct.path("99.0").asDouble(),
          unit,
          m.get("score").asDouble(),
          m.path("scoreError").asDouble(),
          unit);
    }
  }
}

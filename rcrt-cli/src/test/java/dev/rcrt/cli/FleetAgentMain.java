package dev.rcrt.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The agent side of {@link SharedStoreTest}'s fleet test, in its own JVM: writes N tool requests
 * to the shared store (printing {@code written I} as it goes) and waits for every response,
 * printing {@code answered N} and exiting 0, or exiting 1 with the reason.
 *
 * <p>Arguments: JDBC URL, schema, N.
 */
public final class FleetAgentMain {
  private FleetAgentMain() {}

  public static void main(String[] args) throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setMaximumPoolSize(8);
    int n = Integer.parseInt(args[2]);
    try (HikariDataSource pool = new HikariDataSource(config);
        PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(pool).schema(args[1]).build();
        ToolRunner agent = ToolRunner.builder(store).build()) {
      List<CompletableFuture<ToolResponse>> answers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        // each run of breadcrumb-create leaves a record: the count of runs across every process
        var input = RcrtJson.object().put("schema_name", "run.v1").put("title", "run " + i);
        input.putObject("context").put("i", i);
        answers.add(agent.dispatch(ToolRequest.of("breadcrumb-create", input, "agent"), ToolCallOptions.host()));
        System.out.println("written " + i);
      }
      int ok = 0;
      for (CompletableFuture<ToolResponse> a : answers) {
        ok += a.get(120, TimeUnit.SECONDS).success() ? 1 : 0;
      }
      System.out.println("answered " + ok);
      System.exit(ok == n ? 0 : 1);
    }
  }
}

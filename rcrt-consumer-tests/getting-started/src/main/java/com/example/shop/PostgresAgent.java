package com.example.shop;

import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.AgentExecutor;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.tools.BuiltinTools;
import dev.rcrt.tools.ToolRunner;
import javax.sql.DataSource;

/** The same agent with its trail in PostgreSQL: any process on the database sees the records and can resume a run. */
public class PostgresAgent {
  public static DataSource dataSource(String jdbcUrl) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(jdbcUrl); // jdbc:postgresql://localhost:5432/app?user=app&password=...
    return pool;
  }

  public static String ask(DataSource dataSource, LlmClient model, String question) {
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(dataSource).schema("rcrt").build()) {
      BuiltinTools.seed(store); // writes nothing when the records are already there unchanged
      AgentDefinition agent = AgentDefinition.builder("shop-assistant")
          .systemPrompt("You answer questions about orders. Use the tools; never guess a price.")
          .build();
      try (ToolRunner runner = ToolRunner.builder(store).tools(new OrderTools()).build();
          AgentExecutor executor = AgentExecutor.builder(model, runner).agent(agent).build()) {
        return executor.ask("session-1", question).message();
      }
    }
  }
}

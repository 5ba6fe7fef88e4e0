package com.example.shop;

import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import javax.sql.DataSource;

/** The same agent with its trail in PostgreSQL: any process on the database sees the records and can resume a run. */
public class PostgresAgent {
  public static DataSource dataSource(String jdbcUrl) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(jdbcUrl); // jdbc:postgresql://localhost:5432/app?user=app&password=...
    return pool;
  }

  public static String ask(DataSource dataSource, LlmClient model, String question) {
    // creates and migrates its tables in schema "rcrt" on first use; closing it stops its event listener
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(dataSource).schema("rcrt").build()) {
      return FirstAgent.ask(store, model, question);
    }
  }
}

package com.example.shop;

import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.llm.LlmClient;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import javax.sql.DataSource;

/**
 * The same agent with its trail in PostgreSQL: any process on the database sees the records and can
 * resume a run. {@code mvn -q compile exec:java -Dexec.mainClass=com.example.shop.PostgresAgent
 * -Dexec.args=JDBC_URL}, or with {@code JDBC_URL} in the environment.
 */
public class PostgresAgent {
  public static void main(String[] args) {
    String jdbcUrl = args.length > 0 ? args[0] : System.getenv("JDBC_URL");
    if (jdbcUrl == null) {
      System.err.println("Give the database: jdbc:postgresql://localhost:5432/shop?user=shop&password=shop (argument or JDBC_URL)");
      System.exit(2);
    }
    try (HikariDataSource pool = dataSource(jdbcUrl)) {
      System.out.println(ask(pool, FirstAgent.model(System.getenv()), "What do 3 copies of BOOK-7 cost?"));
    }
  }

  public static HikariDataSource dataSource(String jdbcUrl) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(jdbcUrl); // jdbc:postgresql://localhost:5432/shop?user=shop&password=...
    return pool;
  }

  public static String ask(DataSource dataSource, LlmClient model, String question) {
    // creates and migrates its tables in schema "rcrt" on first use; closing it stops its event listener
    try (PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(dataSource).schema("rcrt").build()) {
      return FirstAgent.ask(store, model, question);
    }
  }
}

/** The PostgreSQL store: persistent, shared by many processes, with events and work claims. */
module dev.rcrt.postgres {
  requires transitive dev.rcrt.core;
  requires transitive java.sql;
  requires com.github.benmanes.caffeine;
  requires flyway.core;
  requires org.apache.lucene.core;
  requires org.postgresql.jdbc;
  requires org.slf4j;

  exports dev.rcrt.postgres;

  // Flyway reads the migrations as resources of this package
  opens dev.rcrt.postgres.migration;
}

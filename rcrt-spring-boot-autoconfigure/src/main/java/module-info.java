/** Spring Boot auto-configuration of the RCRT SDK ({@code rcrt.*} properties). */
module dev.rcrt.spring.boot.autoconfigure {
  requires transitive dev.rcrt.agent;
  requires transitive spring.boot;
  requires transitive spring.boot.autoconfigure;
  requires transitive spring.context;
  requires spring.beans;
  requires spring.core;
  requires java.sql;
  requires org.slf4j;

  // optional: each part is configured when the application has the module
  requires static dev.rcrt.postgres;
  requires static dev.rcrt.langchain4j;
  requires static dev.rcrt.opentelemetry;
  requires static io.opentelemetry.api;
  requires static langchain4j.core;
  requires static spring.boot.health;
  requires static dev.rcrt.mcp;
  requires static dev.rcrt.a2a;
  requires static dev.rcrt.agui;
  requires static org.apache.tomcat.embed.core; // jakarta.servlet, for the MCP endpoint

  exports dev.rcrt.spring.boot.autoconfigure;
  // Spring reads and calls the configuration classes reflectively
  opens dev.rcrt.spring.boot.autoconfigure;
}

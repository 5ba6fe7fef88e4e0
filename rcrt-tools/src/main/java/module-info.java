/**
 * Tools: definitions, discovery, the runner and its chain, builtin, module and HTTP tools, and the
 * {@link dev.rcrt.tools.ToolRuntime} SPI through which the other implementation types plug in.
 */
module dev.rcrt.tools {
  requires transitive dev.rcrt.core;
  requires com.github.victools.jsonschema.generator;
  requires com.github.victools.jsonschema.module.jackson;
  requires exp4j;
  requires java.json.canonicalization;
  requires java.management;
  requires org.slf4j;

  exports dev.rcrt.tools;
  exports dev.rcrt.tools.internal.loader.http to dev.rcrt.a2a; // BoundedBody: A2aClient.of reads as the tool runtime does

  uses dev.rcrt.tools.ToolModule;
  uses dev.rcrt.tools.ToolRuntime;
}

package dev.rcrt.tools.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.testing.TestJars;
import dev.rcrt.tools.testing.ToolHarness;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Module tools: from a jar compiled during the test, and from a ServiceLoader provider on the classpath. */
class ModuleToolTest {
  @TempDir static Path dir;
  static Path jar;
  static Path emptyJar;

  /** Jars load only from this class's own temporary directory. */
  private final ToolHarness h =
      new ToolHarness(b -> b.trustPolicy(dev.rcrt.tools.ToolTrustPolicy.builder().allowModuleLocation(dir).build()));

  @AfterEach
  void close() {
    h.close();
  }

  @BeforeAll
  static void buildJars() throws Exception {
    jar = TestJars.moduleJar(dir, "acme-tools-1.2.0.jar", "acme.AcmeTools", TestJars.ACME, "acme.AcmeTools");
    emptyJar = TestJars.moduleJar(dir, "no-provider.jar", "acme.AcmeTools", TestJars.ACME, null);
  }

  private void moduleTool(String name, String module, String export, String version) {
    h.define("tool.v1", """
        {"name":"%s","implementation":{"type":"module","module":%s,"export":"%s"%s},
         "definition":{"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}}
        """.formatted(name, dev.rcrt.core.RcrtJson.write(dev.rcrt.core.RcrtJson.nodes().textNode(module)), export,
        version == null ? "" : ",\"version\":\"" + version + "\""));
  }

  @Test
  void aHandlerFromAJarIsLoadedInItsOwnClassLoaderAndRun() {
    moduleTool("shout", jar.toString(), "shout", "1.2.0");
    ToolResponse r = h.call("shout", "{\"text\":\"hello\"}");
    assertThat(r.error()).isNull();
    assertThat(r.output().get("text").asText()).isEqualTo("HELLO!");
  }

  @Test
  void aJarCanBeNamedByUrl() throws Exception {
    moduleTool("shout-url", jar.toUri().toURL().toString(), "shout", null);
    assertThat(h.call("shout-url", "{\"text\":\"a\"}").output().get("text").asText()).isEqualTo("A!");
  }

  @Test
  void aJarWithoutTheExportNamesTheExportsItHas() {
    moduleTool("whisper", jar.toString(), "whisper", null);
    ToolResponse r = h.call("whisper", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_load_failed");
    assertThat(r.error()).isEqualTo("tool 'whisper': module '" + jar + "' has no export 'whisper'; its exports are [shout]");
  }

  @Test
  void aVersionMismatchNamesBothVersions() {
    moduleTool("shout-old", jar.toString(), "shout", "1.0.0");
    ToolResponse r = h.call("shout-old", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_load_failed");
    assertThat(r.error()).contains("wants module '" + jar + "' version 1.0.0, but the module is version 1.2.0");
  }

  @Test
  void aJarWithoutAProviderSaysSo() {
    moduleTool("nothing", emptyJar.toString(), "shout", null);
    assertThat(h.call("nothing", "{}").error()).contains("declares no dev.rcrt.tools.ToolModule provider in META-INF/services");
  }

  @Test
  void anUnknownModuleIsNeitherOnTheClasspathNorAFile() {
    moduleTool("ghost", "@company/pdf-tools", "generatePDF", null);
    ToolResponse r = h.call("ghost", "{}");
    assertThat(r.errorCode()).isEqualTo("tool_capability_denied");
    assertThat(r.error()).startsWith("tool 'ghost': no module named '@company/pdf-tools' is registered or on the classpath, and '@company/pdf-tools' is not a jar location the host allows");
  }

  @Test
  void aJarPathInAnAllowedLocationThatDoesNotExistIsNamed() {
    String missing = dir.resolve("no-such-tools.jar").toString();
    moduleTool("ghost", missing, "generatePDF", null);
    assertThat(h.call("ghost", "{}").error()).isEqualTo("tool 'ghost': no module named '" + missing + "' on the classpath, and no jar at that path");
  }

  @Test
  void aClasspathModuleIsFoundThroughServiceLoaderByName() {
    moduleTool("reverse", "text-tools", "reverse", "2.0.0");
    assertThat(h.call("reverse", "{\"text\":\"abc\"}").output().get("text").asText()).isEqualTo("cba");
  }

  @Test
  void aClasspathModulesHandlersAlsoServeBuiltinToolsOfTheSameName() {
    h.define("tool.definition.v1", "{\"name\":\"reverse\",\"description\":\"Reverse text\"}");
    assertThat(h.call("reverse", "{\"text\":\"xy\"}").output().get("text").asText()).isEqualTo("yx");
  }

  @Test
  void aHostRegisteredModuleReplacesAClasspathModuleOfTheSameName() {
    try (ToolHarness custom = new ToolHarness(b -> b.module(new dev.rcrt.tools.ToolModule() {
      public String name() { return "text-tools"; }
      public String version() { return "3.0.0"; }
      public java.util.Map<String, dev.rcrt.tools.ToolHandler> handlers() {
        return java.util.Map.of("reverse", (in, ctx) -> dev.rcrt.core.RcrtJson.object().put("text", "host"));
      }
    }))) {
      custom.define("tool.v1", "{\"name\":\"rev\",\"implementation\":{\"type\":\"module\",\"module\":\"text-tools\",\"export\":\"reverse\",\"version\":\"3.0.0\"}}");
      assertThat(custom.call("rev", "{}").output().get("text").asText()).isEqualTo("host");
    }
  }

}

package dev.rcrt.tools.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.jspecify.annotations.Nullable;

/** Builds tool-module jars during a test: compiles Java source and packages it. */
public final class TestJars {
  private TestJars() {}

  /** The {@code acme-tools} 1.2.0 module with one export, {@code shout}: {@code {text}} → {@code {text: TEXT!}}. */
  public static final String ACME =
      """
      package acme;
      import dev.rcrt.tools.*;
      import java.util.Map;
      public final class AcmeTools implements ToolModule {
        public String name() { return "acme-tools"; }
        public String version() { return "1.2.0"; }
        public Map<String, ToolHandler> handlers() {
          return Map.of("shout", (input, context) ->
              dev.rcrt.core.RcrtJson.object().put("text", input.path("text").asText().toUpperCase() + "!"));
        }
      }
      """;

  /**
   * Compiles {@code source} (one public class) against the test classpath and writes a jar.
   *
   * @param provider the class to list in {@code META-INF/services/dev.rcrt.tools.ToolModule}, or
   *     null for a jar without a provider
   */
  public static Path moduleJar(Path dir, String jarName, String className, String source, @Nullable String provider) throws Exception {
    Path src = dir.resolve("src/" + className.replace('.', '/') + ".java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, source);
    Path classes = dir.resolve("classes-" + jarName);
    int status =
        ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"), src.toString());
    assertThat(status).as("javac " + src).isZero();
    Path jar = dir.resolve(jarName);
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
      if (provider != null) {
        out.putNextEntry(new JarEntry("META-INF/services/dev.rcrt.tools.ToolModule"));
        out.write((provider + "\n").getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }
}

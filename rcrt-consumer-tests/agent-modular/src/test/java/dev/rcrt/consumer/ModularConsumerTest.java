package dev.rcrt.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK as a modular application meets it: every SDK artifact and library on the module path,
 * the application a named module that reads {@code dev.rcrt.agent}. An agent turn runs there, and
 * the compiler refuses an import of the SDK's internals while it accepts its SPI.
 */
class ModularConsumerTest {
  @TempDir Path dir;

  /** The runtime dependencies as Maven resolved them for this project. */
  private static List<String> dependencies() throws Exception {
    String file = Files.readString(Path.of(System.getProperty("rcrt.runtimeClasspath"))).trim();
    return List.of(file.split(File.pathSeparator)).stream().filter(f -> f.endsWith(".jar")).toList(); // js-community is a pom
  }

  @Test
  void anAgentAndAJavaScriptToolRunOnTheModulePath() throws Exception {
    List<String> modulePath = new ArrayList<>(dependencies());
    modulePath.add(0, System.getProperty("rcrt.applicationClasses"));
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-p", String.join(File.pathSeparator, modulePath),
        "-m", "dev.rcrt.consumer.modular/dev.rcrt.consumer.modular.ModularAgent"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String out = Files.readString(dir.resolve("out.txt"));
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("391").contains("sdk module: dev.rcrt.tools, named: true").contains("javascript: {\"square\":144}");
  }

  @Test
  void aModuleCannotImportTheSdksInternalsButMayUseItsSpi() throws Exception {
    assertThat(compile("dev.rcrt.core.internal.Mapper")).contains("dev.rcrt.core.internal").contains("not visible");
    assertThat(compile("dev.rcrt.tools.internal.chain.ExecutionChain")).contains("not visible");
    assertThat(compile("dev.rcrt.core.spi.Throwables")).isEmpty();
  }

  /** Compiles a one-class module that requires dev.rcrt.agent and imports {@code type}; the compiler's errors, empty when it compiled. */
  private String compile(String type) throws Exception {
    Path src = Files.createDirectories(dir.resolve("src-" + type.hashCode()).resolve("probe"));
    Files.writeString(src.getParent().resolve("module-info.java"), "module probe { requires dev.rcrt.agent; }");
    Files.writeString(src.resolve("Probe.java"), "package probe;\nimport " + type + ";\npublic class Probe {}\n");
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status = javac.run(null, null, errors,
        "-d", dir.resolve("out-" + type.hashCode()).toString(),
        "--module-path", String.join(File.pathSeparator, dependencies()),
        "-Xlint:-module", // the SDK's own requires on automatic modules are not the probe's to report
        src.getParent().resolve("module-info.java").toString(), src.resolve("Probe.java").toString());
    String text = errors.toString(StandardCharsets.UTF_8);
    return status == 0 ? "" : text;
  }
}

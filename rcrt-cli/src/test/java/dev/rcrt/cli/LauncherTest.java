package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ./rcrt} launcher, run by bash on a copy of the repository layout with a stand-in {@code mvn}. */
class LauncherTest {
  private static final Path SCRIPT = Path.of("..", "rcrt").toAbsolutePath().normalize();

  @TempDir Path home;

  private record Run(int status, String err) {}

  /** Runs a copy of the launcher whose first build is {@code mvnScript}. */
  private Run launch(String mvnScript) throws Exception {
    Files.copy(SCRIPT, home.resolve("rcrt"));
    Files.writeString(home.resolve("pom.xml"), "<project/>");
    Path bin = Files.createDirectories(home.resolve("bin"));
    Path mvn = bin.resolve("mvn");
    Files.writeString(mvn, "#!/usr/bin/env bash\n" + mvnScript + "\n");
    Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    return run("bash", bin + ":" + System.getenv("PATH"));
  }

  /** Runs the copy of the launcher with {@code --help}, by {@code bash}, on {@code path}. */
  private Run run(String bash, String path) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(bash, home.resolve("rcrt").toString(), "--help");
    pb.environment().put("PATH", path);
    Process p = pb.start();
    p.getOutputStream().close();
    byte[] err = p.getErrorStream().readAllBytes();
    p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), new String(err, StandardCharsets.UTF_8));
  }

  @Test
  void aFailedFirstBuildShowsMavensOutputWithoutEscapeCodesAndExitsOne() throws Exception {
    Run run = launch("printf '\\033[0m\\033[1;31m[ERROR] COMPILATION ERROR\\033[0m\\n'; exit 1");

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err()).contains("[ERROR] COMPILATION ERROR").contains("rcrt: build failed").doesNotContain("\u001b");
  }

  @Test
  void aSuccessfulFirstBuildShowsOnlyItsProgressModuleByModule() throws IOException, Exception {
    Run run = launch("printf '\\033[0m\\033[0mBUILD NOISE\\n[INFO] Building RCRT core 0.1.0-SNAPSHOT                 [1/2]\\n"
        + "[INFO] Building jar: x.jar\\n\\033[1m[INFO] Building RCRT command line 0.1.0-SNAPSHOT [2/2]\\033[0m\\n';"
        + " mkdir -p rcrt-cli/target; touch rcrt-cli/target/rcrt-cli.jar; exit 0");

    assertThat(run.err()).startsWith("rcrt: building the command line").contains("takes a few minutes")
        .contains("rcrt:   [1/2] RCRT core\n").contains("rcrt:   [2/2] RCRT command line\n")
        .doesNotContain("BUILD NOISE").doesNotContain("x.jar").doesNotContain("\u001b");
  }

  /** Runs a copy of the launcher with a PATH of the few tools it uses, plus {@code java} when asked: no Maven. */
  private Run launchWithout(boolean withJava) throws Exception {
    Files.copy(SCRIPT, home.resolve("rcrt"));
    Files.writeString(home.resolve("pom.xml"), "<project/>");
    Path bin = Files.createDirectories(home.resolve("bare-bin"));
    for (String tool : new String[] {"dirname", "find", "head", "readlink", "sed", "mktemp", "rm", "touch", "cat"}) {
      for (String dir : new String[] {"/usr/bin", "/bin"}) {
        Path found = Path.of(dir, tool);
        if (Files.exists(found) && !Files.exists(bin.resolve(tool))) {
          Files.createSymbolicLink(bin.resolve(tool), found);
        }
      }
    }
    if (withJava) {
      Files.createSymbolicLink(bin.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
    }
    return run("/bin/bash", bin.toString());
  }

  @Test
  void withoutJavaItSaysSoAndExitsOne() throws Exception {
    Run run = launchWithout(false);

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err()).contains("rcrt: no java on the PATH").contains("JDK 17");
  }

  @Test
  void withoutMavenAndNothingBuiltItNamesMavenAndTheJarAndExitsOne() throws Exception {
    Run run = launchWithout(true);

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.err()).contains("there is no mvn on the PATH").contains("java -jar rcrt-cli/target/rcrt-cli.jar");
  }

  /**
   * What the launcher passes to {@code java}, a stand-in that says it is {@code version} and prints
   * its arguments, with {@code RCRT_JAVA_OPTS} set to {@code javaOpts} (null: unset); the command
   * line is built already.
   */
  private String javaArguments(String version, String javaOpts) throws Exception {
    Path dir = Files.createTempDirectory(home, "jdk-" + version + "-");
    Files.copy(SCRIPT, dir.resolve("rcrt"));
    Files.writeString(dir.resolve("pom.xml"), "<project/>");
    Path target = Files.createDirectories(dir.resolve("rcrt-cli/target"));
    Files.writeString(target.resolve("rcrt-cli.jar"), ""); // written after the pom: nothing to build
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path java = bin.resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\n"
        + "if [ \"$1\" = -version ]; then echo 'openjdk version \"" + version + "\" 2025-01-01' >&2; exit 0; fi\n"
        + "echo \"java $*\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    ProcessBuilder pb = new ProcessBuilder("bash", dir.resolve("rcrt").toString(), "runner", "--lease", "100");
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("RCRT_JAVA_OPTS");
    if (javaOpts != null) {
      pb.environment().put("RCRT_JAVA_OPTS", javaOpts);
    }
    Process p = pb.redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.strip();
  }

  @Test
  void itRunsTheCommandLineOnZgcUnlessTheUserChoseACollector() throws Exception {
    // ZGC's pauses stay short where G1's outlast a 100 ms lease on a loaded machine; generational from JDK 23 on, asked for on 21 and 22
    assertThat(javaArguments("17.0.15", null)).startsWith("java -XX:+UseZGC -cp ").endsWith("dev.rcrt.cli.Main runner --lease 100")
        .doesNotContain("ZGenerational");
    assertThat(javaArguments("21.0.4", null)).startsWith("java -XX:+UseZGC -XX:+ZGenerational -cp ");
    assertThat(javaArguments("25.0.3", null)).startsWith("java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
        + " -XX:+UseZGC -cp ").doesNotContain("ZGenerational");
    // two collectors would stop the JVM from starting: the user's choice is the only one
    assertThat(javaArguments("17.0.15", "-Xmx1g -XX:+UseG1GC")).startsWith("java -Xmx1g -XX:+UseG1GC -cp ").doesNotContain("ZGC");
    assertThat(javaArguments("17.0.15", "-Xmx1g -XX:+UseParallelGC")).startsWith("java -Xmx1g -XX:+UseParallelGC -cp ");
    assertThat(javaArguments("17.0.15", "-Xmx1g")).startsWith("java -XX:+UseZGC -Xmx1g -cp ");
    assertThat(javaArguments("17.0.15", "-XX:+UseLargePages -XX:+DisableExplicitGC"))
        .as("options that only mention a collector").startsWith("java -XX:+UseZGC -XX:+UseLargePages -XX:+DisableExplicitGC -cp ");
  }

  @Test
  void theTestsStartTheirCommandLineJvmsOnTheCollectorTheLauncherChooses() throws Exception {
    for (String version : List.of("17.0.15", "21.0.4", "22.0.2", "23.0.1", "25.0.3")) {
      List<String> launcher = java.util.Arrays.stream(javaArguments(version, null).split(" ")).filter(w -> w.startsWith("-XX:")).toList();
      assertThat(launcher).as("JDK %s", version).isEqualTo(TestJvm.collectorFlags(Integer.parseInt(version.split("\\.")[0])));
    }
  }
}

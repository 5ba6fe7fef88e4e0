package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
}

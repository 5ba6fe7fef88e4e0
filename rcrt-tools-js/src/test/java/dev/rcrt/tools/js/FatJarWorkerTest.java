package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JavaScript tool runs from a Spring Boot executable jar: the SDK, GraalJS and every other
 * library are jars nested in {@code BOOT-INF/lib}, loaded by Spring Boot's own {@code JarLauncher}
 * (from the {@code spring-boot-loader} artifact), and {@code java.class.path} names only the fat
 * jar. The worker JVMs must start from what the runtime's class loader really holds.
 */
class FatJarWorkerTest {
  @TempDir Path dir;

  @Test
  void aJavaScriptToolRunsFromASpringBootStyleNestedJar() throws Exception {
    Path app = dir.resolve("app.jar");
    buildFatJar(app);
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    if (Runtime.version().feature() >= 24) {
      command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
    }
    command.addAll(List.of("-jar", app.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the application ends").isTrue();
    String out = Files.readString(dir.resolve("out.txt"));
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("output: {\"square\":144}").contains("classpath: " + app);
  }

  /** Spring Boot's layout: the loader at the root, the application's classes and its jars (stored, not deflated) under BOOT-INF. */
  private void buildFatJar(Path app) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "org.springframework.boot.loader.launch.JarLauncher");
    manifest.getMainAttributes().putValue("Start-Class", FatJarMain.class.getName());
    manifest.getMainAttributes().putValue("Spring-Boot-Classes", "BOOT-INF/classes/");
    manifest.getMainAttributes().putValue("Spring-Boot-Lib", "BOOT-INF/lib/");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(app), manifest)) {
      for (String directory : List.of("BOOT-INF/", "BOOT-INF/classes/", "BOOT-INF/lib/")) { // the launcher looks for these entries
        out.putNextEntry(new JarEntry(directory));
        out.closeEntry();
      }
      int n = 0;
      // under Surefire, java.class.path is a manifest-only booter jar; the test class path is this property
      String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      for (String entry : classPath.split(File.pathSeparator)) {
        Path path = Path.of(entry);
        String name = path.getFileName().toString();
        if (name.startsWith("spring-boot-loader")) {
          copyLoader(path, out);
        } else if (Files.isDirectory(path) && path.endsWith("test-classes")) {
          copyTree(path, "BOOT-INF/classes/", out);
        } else if (Files.isDirectory(path)) {
          stored(out, "BOOT-INF/lib/dir" + (n++) + ".jar", jarOf(path));
        } else if (name.endsWith(".jar") && !name.startsWith("surefire") && !name.startsWith("junit") && !name.startsWith("wiremock")) {
          stored(out, "BOOT-INF/lib/" + (n++) + "-" + name, Files.readAllBytes(path));
        }
      }
    }
  }

  private static void copyLoader(Path loaderJar, JarOutputStream out) throws IOException {
    try (JarFile jar = new JarFile(loaderJar.toFile())) {
      for (JarEntry e : java.util.Collections.list(jar.entries())) {
        if (e.getName().startsWith("org/")) {
          out.putNextEntry(new JarEntry(e.getName()));
          if (!e.isDirectory()) {
            jar.getInputStream(e).transferTo(out);
          }
          out.closeEntry();
        }
      }
    }
  }

  private static void copyTree(Path root, String prefix, JarOutputStream out) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(prefix + root.relativize(f).toString().replace(File.separatorChar, '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
    }
  }

  private static byte[] jarOf(Path classes) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (JarOutputStream jar = new JarOutputStream(bytes)) {
      copyTree(classes, "", jar);
    }
    return bytes.toByteArray();
  }

  /** A nested jar must be stored uncompressed for Spring Boot's loader to open it in place. */
  private static void stored(OutputStream raw, String name, byte[] content) throws IOException {
    JarOutputStream out = (JarOutputStream) raw;
    ZipEntry e = new ZipEntry(name);
    e.setMethod(ZipEntry.STORED);
    e.setSize(content.length);
    e.setCompressedSize(content.length);
    CRC32 crc = new CRC32();
    crc.update(content);
    e.setCrc(crc.getValue());
    out.putNextEntry(e);
    out.write(content);
    out.closeEntry();
  }
}

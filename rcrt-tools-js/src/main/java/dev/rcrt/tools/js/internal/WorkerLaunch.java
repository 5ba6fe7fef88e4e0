package dev.rcrt.tools.js.internal;

import dev.rcrt.tools.js.internal.worker.JsWorkerMain;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class path a worker JVM starts with, computed from where this runtime's own classes were
 * loaded, not from {@code java.class.path} (which is a launcher's jar alone in a Spring Boot fat
 * jar, and empty of the SDK on the module path):
 *
 * <ul>
 *   <li>a {@link URLClassLoader} chain (Spring Boot's launcher, an application server's web-app
 *       loader): its URLs; a jar nested in another jar ({@code jar:nested:/app.jar/!BOOT-INF/lib/x.jar!/}
 *       or {@code jar:file:/app.jar!/BOOT-INF/lib/x.jar!/}) is copied once into a directory this
 *       launch owns and deletes on {@link #close()};
 *   <li>the module path ({@code jdk.module.path}) followed by the class path: the worker runs them
 *       all on its class path, where GraalJS and the SDK need no module descriptor of the host's.
 * </ul>
 *
 * Thread-safe; computed once, on the first worker start.
 */
final class WorkerLaunch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerLaunch.class);

  private final ClassLoader loader;
  private @Nullable List<String> classPath;
  private @Nullable Path extracted;

  WorkerLaunch(ClassLoader loader) {
    this.loader = loader;
  }

  /** For the loader that loaded this runtime. */
  static WorkerLaunch ofThisRuntime() {
    ClassLoader own = JsWorkerMain.class.getClassLoader();
    return new WorkerLaunch(own != null ? own : ClassLoader.getSystemClassLoader());
  }

  /** {@code -cp <entries> <main class>}. */
  synchronized List<String> arguments() throws IOException {
    if (classPath == null) {
      classPath = compute();
    }
    return List.of("-cp", String.join(File.pathSeparator, classPath), JsWorkerMain.class.getName());
  }

  private List<String> compute() throws IOException {
    Set<String> entries = new LinkedHashSet<>();
    for (ClassLoader l = loader; l != null; l = l.getParent()) {
      if (l instanceof URLClassLoader urls) {
        List<URL> mine = List.of(urls.getURLs());
        for (URL url : mine) {
          String entry = local(url);
          if (entry != null) {
            entries.add(entry);
          }
        }
      }
    }
    for (String property : new String[] {"jdk.module.path", "java.class.path"}) {
      String value = System.getProperty(property);
      if (value != null && !value.isBlank()) {
        for (String entry : value.split(File.pathSeparator)) {
          if (!entry.isBlank()) {
            entries.add(entry);
          }
        }
      }
    }
    LOG.debug("JavaScript workers start with {} class path entries", entries.size());
    return List.copyOf(entries);
  }

  /** A URL's local file, copying a jar nested in another jar out first; null for what cannot be a class path entry. */
  private @Nullable String local(URL url) throws IOException {
    String text = url.toString();
    if (url.getProtocol().equals("file")) {
      try {
        return Path.of(url.toURI()).toString();
      } catch (URISyntaxException | IllegalArgumentException e) {
        return null;
      }
    }
    if (!text.startsWith("jar:") || !text.endsWith("!/")) {
      return null;
    }
    String jar = text.substring(0, text.length() - 2); // the jar itself, not its root directory
    if (!jar.substring(4).contains("!/")) {
      jar = jar.substring(4); // jar:nested:/app.jar/!lib/x.jar → nested:/app.jar/!lib/x.jar, a jar of its own
    }
    if (jar.startsWith("file:")) {
      try {
        return Path.of(java.net.URI.create(jar)).toString();
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
    String name = jar.substring(jar.lastIndexOf('/') + 1);
    if (!name.endsWith(".jar")) {
      return null; // a directory inside the fat jar (the application's own classes): nothing a worker runs
    }
    if (extracted == null) {
      extracted = Files.createTempDirectory("rcrt-js-worker-classpath");
    }
    Path target = extracted.resolve(Integer.toHexString(jar.hashCode()) + "-" + name);
    try (InputStream in = java.net.URI.create(jar).toURL().openStream()) {
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      LOG.debug("class path entry {} could not be copied for the JavaScript workers: {}", url, e.toString());
      return null;
    }
    return target.toString();
  }

  /** Deletes the jars copied out of nested jars. */
  @Override
  public synchronized void close() {
    if (extracted == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(extracted)) {
      List<Path> all = new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("could not delete {}: {}", extracted, e.toString());
    }
    extracted = null;
  }
}

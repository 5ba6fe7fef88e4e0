package dev.rcrt.tools.internal.loader;

import dev.rcrt.tools.Capability;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolErrorCode;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.ToolHandler;
import dev.rcrt.tools.ToolModule;
import dev.rcrt.tools.ToolTrustPolicy;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Type {@code module}: {@code {module, export, version?}}. {@code module} names a {@link ToolModule}
 * on the classpath, or else is a jar path or URL loaded in a class loader of its own (kept until
 * the runner closes) if the trust policy allows that location ({@link Capability.ModuleJar}). {@code export} names the handler; {@code version}, when given, must equal the
 * module's.
 */
public final class ModuleLoader implements ImplementationLoader, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ModuleLoader.class);

  private final Map<String, ToolModule> classpath;
  private final ConcurrentHashMap<String, JarModules> jars = new ConcurrentHashMap<>();

  private record JarModules(URLClassLoader loader, List<ToolModule> modules) {}

  private final ToolTrustPolicy policy;

  public ModuleLoader(Map<String, ToolModule> classpath, ToolTrustPolicy policy) {
    this.classpath = Map.copyOf(classpath);
    this.policy = policy;
  }

  @Override
  public Invoker load(ToolDefinition definition) {
    String tool = definition.name();
    String module = definition.implementation().text("module", "");
    String export = definition.implementation().text("export", "");
    if (module.isBlank() || export.isBlank()) {
      throw new ToolException(
          ToolErrorCode.TOOL_DEFINITION_INVALID,
          "tool '" + tool + "' implementation: type module needs 'module' and 'export'");
    }
    ToolModule found = classpath.get(module);
    if (found == null) {
      found = fromJar(tool, module, export);
    }
    String wanted = definition.implementation().text("version", "");
    if (!wanted.isBlank() && !wanted.equals(found.version())) {
      throw new ToolException(
          ToolErrorCode.TOOL_LOAD_FAILED,
          "tool '" + tool + "' wants module '" + module + "' version " + wanted + ", but the module is version "
              + found.version() + "; update the tool breadcrumb or supply the matching jar");
    }
    ToolHandler handler = found.handlers().get(export);
    if (handler == null) {
      throw new ToolException(
          ToolErrorCode.TOOL_LOAD_FAILED,
          "tool '" + tool + "': module '" + module + "' has no export '" + export + "'; its exports are "
              + new TreeSet<>(found.handlers().keySet()));
    }
    return BuiltinLoader.handlerInvoker(handler);
  }

  private ToolModule fromJar(String tool, String module, String export) {
    Capability.ModuleJar jarCapability = new Capability.ModuleJar(module);
    if (!policy.allows(jarCapability)) {
      throw new ToolException(
          ToolErrorCode.TOOL_CAPABILITY_DENIED,
          "tool '" + tool + "': no module named '" + module + "' is registered or on the classpath, and '" + module
              + "' is not a jar location the host allows; register the module, or allow the jar's directory: "
              + policy.howToAllow(jarCapability));
    }
    JarModules jar = jars.computeIfAbsent(module, m -> open(tool, m));
    if (jar.modules().isEmpty()) {
      throw new ToolException(
          ToolErrorCode.TOOL_LOAD_FAILED,
          "tool '" + tool + "': jar '" + module + "' declares no " + ToolModule.class.getName()
              + " provider in META-INF/services");
    }
    for (ToolModule m : jar.modules()) {
      if (m.handlers().containsKey(export)) {
        return m;
      }
    }
    return jar.modules().get(0);
  }

  private JarModules open(String tool, String module) {
    URL url = toUrl(tool, module);
    URLClassLoader loader = new URLClassLoader(new URL[] {url}, ToolModule.class.getClassLoader());
    List<ToolModule> modules = new ArrayList<>();
    try {
      for (ToolModule m : ServiceLoader.load(ToolModule.class, loader)) {
        if (m.getClass().getClassLoader() == loader) {
          modules.add(m);
        }
      }
    } catch (java.util.ServiceConfigurationError e) {
      closeQuietly(loader);
      throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': jar '" + module + "' is broken: " + e.getMessage(), e);
    }
    LOG.debug("loaded {} tool module(s) from {}", modules.size(), module);
    return new JarModules(loader, modules);
  }

  private static URL toUrl(String tool, String module) {
    try {
      if (module.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") && !module.matches("^[a-zA-Z]:\\\\.*")) {
        return new URL(module);
      }
      Path path = Path.of(module);
      if (!Files.isRegularFile(path)) {
        throw new ToolException(
            ToolErrorCode.TOOL_LOAD_FAILED,
            "tool '" + tool + "': no module named '" + module + "' on the classpath, and no jar at that path");
      }
      return path.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new ToolException(ToolErrorCode.TOOL_LOAD_FAILED, "tool '" + tool + "': module '" + module + "' is not a valid URL", e);
    }
  }

  @Override
  public void close() {
    jars.values().forEach(j -> closeQuietly(j.loader()));
    jars.clear();
  }

  private static void closeQuietly(URLClassLoader loader) {
    try {
      loader.close();
    } catch (IOException e) {
      LOG.debug("closing module class loader failed", e);
    }
  }
}

package dev.rcrt.tools;

import java.util.Map;

/**
 * A named, versioned bundle of {@link ToolHandler}s in a jar: the Java form of RCRT's {@code
 * module} implementation type, {@code {type: "module", module, export, version}}.
 *
 * <p>Publish one through {@link java.util.ServiceLoader}: list the implementing class in {@code
 * META-INF/services/dev.rcrt.tools.ToolModule}. On the classpath, a tool's {@code module} names the
 * provider by {@link #name()}; otherwise {@code module} is a jar path or URL that the runner loads
 * in its own class loader. {@code export} names the handler in {@link #handlers()}, and {@code
 * version}, when given, must equal {@link #version()}.
 *
 * <p>Handlers of classpath modules also serve {@code builtin} tools of the same name.
 * Implementations need a public no-argument constructor and must be thread-safe.
 */
public interface ToolModule {

  /** The module's name, as tool breadcrumbs write it in {@code implementation.module}. */
  String name();

  /** The module's version, compared with {@code implementation.version}. */
  String version();

  /** The handlers by export name. */
  Map<String, ToolHandler> handlers();
}

package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.SandboxPolicy;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.jspecify.annotations.Nullable;

/**
 * Strips TypeScript types inside the JVM with the TypeScript compiler itself (the {@code typescript}
 * npm package from its WebJar, run in GraalJS through {@code ts.transpileModule}). The compiler is
 * loaded on first use; each distinct source is transpiled once and cached by its checksum.
 * Syntax errors come back with line and column. Thread-safe.
 */
final class TypeScriptCompiler implements AutoCloseable {
  private static final String WEBJAR = "META-INF/maven/org.webjars.npm/typescript/pom.properties";
  private static final String TRANSPILE =
      "(src) => { const r = ts.transpileModule(src, {fileName: 'tool.ts', reportDiagnostics: true,"
          + " compilerOptions: {target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext}});"
          + " return JSON.stringify({js: r.outputText, diagnostics: (r.diagnostics || []).map(d => {"
          + " const lc = d.file ? d.file.getLineAndCharacterOfPosition(d.start) : {line: 0, character: 0};"
          + " return {line: lc.line + 1, column: lc.character + 1,"
          + " message: ts.flattenDiagnosticMessageText(d.messageText, ' ')}; })}); }";

  private final Engine engine;
  private final ConcurrentHashMap<String, String> cache = new ConcurrentHashMap<>();
  private @Nullable Context context;
  private @Nullable Value transpile;

  TypeScriptCompiler(Engine engine) {
    this.engine = engine;
  }

  /**
   * The JavaScript for {@code source}.
   *
   * @param checksum identifies the source, for the cache
   * @throws ToolException {@code tool_definition_invalid} listing each error with line and column
   */
  String toJavaScript(String tool, String source, String checksum) {
    String cached = cache.get(checksum);
    if (cached != null) {
      return cached;
    }
    JsonNode result;
    synchronized (this) {
      result = RcrtJson.parse(compiler().execute(source).asString());
    }
    List<String> errors = new ArrayList<>();
    for (JsonNode d : result.path("diagnostics")) {
      errors.add("line " + d.path("line").asInt() + ", column " + d.path("column").asInt() + ": " + d.path("message").asText());
    }
    if (!errors.isEmpty()) {
      throw new ToolException(
          "tool_definition_invalid", "tool '" + tool + "' TypeScript does not compile: " + String.join("; ", errors));
    }
    String js = result.path("js").asText();
    cache.put(checksum, js);
    return js;
  }

  private Value compiler() {
    if (transpile == null) {
      context =
          Context.newBuilder("js")
              .engine(engine)
              .sandbox(SandboxPolicy.CONSTRAINED)
              .allowHostAccess(HostAccess.CONSTRAINED)
              .out(OutputStream.nullOutputStream())
              .err(OutputStream.nullOutputStream())
              .build();
      context.eval(Source.newBuilder("js", read(scriptPath()), "typescript.js").buildLiteral());
      transpile = context.eval("js", TRANSPILE);
    }
    return transpile;
  }

  private static String scriptPath() {
    Properties props = new Properties();
    try (InputStream in = resource(WEBJAR)) {
      props.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + WEBJAR, e);
    }
    return "META-INF/resources/webjars/typescript/" + props.getProperty("version") + "/lib/typescript.js";
  }

  private static String read(String path) {
    try (InputStream in = resource(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path, e);
    }
  }

  private static InputStream resource(String path) {
    InputStream in = TypeScriptCompiler.class.getClassLoader().getResourceAsStream(path);
    if (in == null) {
      throw new ToolException(
          "tool_unsupported",
          "TypeScript tools need org.webjars.npm:typescript on the classpath (" + path + " not found)");
    }
    return in;
  }

  @Override
  public synchronized void close() {
    if (context != null) {
      context.close(true);
      context = null;
      transpile = null;
    }
  }
}

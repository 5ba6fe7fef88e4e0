/**
 * The {@code breadcrumb} implementation type: JavaScript and TypeScript tools on GraalJS, run in
 * worker processes ({@link dev.rcrt.tools.js.JavaScriptRuntime}).
 */
module dev.rcrt.tools.js {
  requires transitive dev.rcrt.tools;
  requires java.management;
  requires jdk.management; // the worker reads its thread's allocations (com.sun.management)
  requires org.graalvm.polyglot;
  requires org.slf4j;

  exports dev.rcrt.tools.js;

  // the worker protocol's records (JsProgram) are written by Jackson
  opens dev.rcrt.tools.js.internal.worker to com.fasterxml.jackson.databind;

  provides dev.rcrt.tools.ToolRuntime with dev.rcrt.tools.js.JavaScriptRuntime;
}

/**
 * JavaScript and TypeScript tools on GraalJS: the {@code breadcrumb} implementation type ({@link
 * dev.rcrt.tools.js.JavaScriptRuntime}), a {@link dev.rcrt.tools.ToolRuntime} found through {@link
 * java.util.ServiceLoader} when the {@code rcrt-tools-js} artifact is on the classpath.
 */
@NullMarked
package dev.rcrt.tools.js;

import org.jspecify.annotations.NullMarked;

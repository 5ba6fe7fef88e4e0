/**
 * Container tools on Docker: the {@code container} implementation type ({@link
 * dev.rcrt.tools.docker.DockerRuntime}), a {@link dev.rcrt.tools.ToolRuntime} found through {@link
 * java.util.ServiceLoader} when the {@code rcrt-tools-docker} artifact is on the classpath.
 */
@NullMarked
package dev.rcrt.tools.docker;

import org.jspecify.annotations.NullMarked;

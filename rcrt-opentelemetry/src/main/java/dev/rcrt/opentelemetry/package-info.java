/**
 * OpenTelemetry for the SDK, on {@code opentelemetry-api} alone: {@link
 * dev.rcrt.opentelemetry.RcrtTelemetry} traces and measures agent turns, model calls and tool calls
 * after the OpenTelemetry GenAI semantic conventions.
 */
@NullMarked
package dev.rcrt.opentelemetry;

import org.jspecify.annotations.NullMarked;

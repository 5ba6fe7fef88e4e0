package dev.rcrt.cli.internal;

import dev.rcrt.opentelemetry.RcrtTelemetry;
import io.opentelemetry.exporter.logging.otlp.internal.traces.OtlpStdoutSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --trace FILE}: the run's spans written to FILE as OTLP JSON, one {@code
 * ExportTraceServiceRequest} object per line (the OpenTelemetry SDK's OTLP stdout exporter, pointed
 * at the file), each span as it ends. {@code --trace-content} opts in to the content attributes
 * ({@link RcrtTelemetry.Builder#captureContent}).
 */
final class TraceFile implements AutoCloseable {
  private final OutputStream out;
  private final OpenTelemetrySdk otel;
  private final RcrtTelemetry telemetry;

  TraceFile(Path file, boolean content) throws IOException {
    this.out = Files.newOutputStream(file);
    this.otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(OtlpStdoutSpanExporter.builder().setOutput(out).setWrapperJsonObject(true).build()))
            .build())
        .build();
    this.telemetry = RcrtTelemetry.builder(otel).captureContent(content).build();
  }

  RcrtTelemetry telemetry() {
    return telemetry;
  }

  @Override
  public void close() throws IOException {
    otel.close(); // flushes the spans
    out.close();
  }
}

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

  /**
   * @param serviceName the resource's {@code service.name}: {@code OTEL_SERVICE_NAME} when set, else {@code rcrt-cli}
   */
  TraceFile(Path file, boolean content, String serviceName) throws IOException {
    this.out = Files.newOutputStream(file);
    this.otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder()
            .setResource(io.opentelemetry.sdk.resources.Resource.getDefault().merge(io.opentelemetry.sdk.resources.Resource.create(
                io.opentelemetry.api.common.Attributes.of(io.opentelemetry.api.common.AttributeKey.stringKey("service.name"), serviceName))))
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

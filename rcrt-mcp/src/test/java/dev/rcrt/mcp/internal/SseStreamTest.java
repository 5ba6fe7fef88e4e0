package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.PrintWriter;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The order in which a connection is attached to a stream, seen from the connection's writer. */
class SseStreamTest {
  @Test
  void aConnectionIsAnnouncedAsAttachedBeforeAnythingIsWrittenOnIt() {
    // a hold timer set after the priming event could be set after its client read it and the clock moved on: it would never fire
    List<String> seen = new ArrayList<>();
    Writer wire = new Writer() {
      @Override
      public void write(char[] text, int from, int length) {
        seen.add("written: " + new String(text, from, length).lines().findFirst().orElse(""));
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    SseStream stream = new SseStream("rstream", "session", McpJsonDefaults.getMapper(), Duration.ofSeconds(1), s -> {});
    assertThat(stream.attach(new SseStream.Connection(null, new PrintWriter(wire)), 0, n -> seen.add("attached " + n))).isTrue();
    assertThat(seen).first().isEqualTo("attached 1");
    assertThat(seen).contains("written: id: rstream_0");
  }

  @Test
  void aStreamIsCountedAsEndedBeforeItsClientLearnsOfTheEnd() {
    // the server's bounds on ended streams (the oldest forgotten) must hold by the time the client can come back
    List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    jakarta.servlet.AsyncContext async = (jakarta.servlet.AsyncContext) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {jakarta.servlet.AsyncContext.class}, (proxy, method, args) -> {
          if (method.getName().equals("complete")) {
            seen.add("connection completed");
          }
          return null;
        });
    SseStream stream = new SseStream("rstream", "session", McpJsonDefaults.getMapper(), Duration.ofSeconds(1), s -> seen.add("ended"));
    assertThat(stream.attach(new SseStream.Connection(async, new PrintWriter(java.io.Writer.nullWriter())), 0, n -> {})).isTrue();
    stream.close();
    assertThat(seen).containsExactly("ended", "connection completed");
  }
}

package dev.rcrt.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.testing.BusyCommonPool;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A host that keeps the common fork-join pool busy does not hold back its HTTP tools: the JDK's
 * {@code HttpClient.sendAsync} completes its future on that pool (always on JDK 25; on JDK 17 with
 * three or more cores), whatever the client's executor, and a call waited for its response through
 * that future.
 */
class BusyCommonPoolTest {
  @Test
  void anHttpToolIsAnsweredWhileEveryWorkerOfTheCommonPoolIsBlocked() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/echo", x -> {
      byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().add("Content-Type", "application/json");
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.start();
    InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().build();
    store.create(BreadcrumbCreate.builder("tool.v1", "echo").context(RcrtJson.parse("{\"name\":\"echo\",\"capabilities\":{\"timeout\":60000},"
        + "\"implementation\":{\"type\":\"http\",\"endpoint\":\"http://127.0.0.1:" + server.getAddress().getPort() + "/echo\"}}")).build());
    try (ToolRunner runner = ToolRunner.builder(store).trustPolicy(ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build()).build();
        BusyCommonPool busy = BusyCommonPool.block(Duration.ofSeconds(30))) {
      // before: the response waited for a worker of the common pool, so the call ran out its 60 s limit
      ToolResponse answered = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> runner.call(ToolRequest.of("echo", RcrtJson.object(), "test")));
      assertThat(answered.error()).isNull();
      assertThat(RcrtJson.write(answered.output())).isEqualTo("{\"ok\":true}");
    } finally {
      server.stop(0);
    }
  }
}

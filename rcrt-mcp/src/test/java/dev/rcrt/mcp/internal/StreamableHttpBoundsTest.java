package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.testing.TestClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the transport keeps for clients that come back is bounded by count as well as by text: a
 * flood of small requests leaves at most the newest streams resumable, and a stream past the
 * resume window is gone even when nothing else happened since.
 */
class StreamableHttpBoundsTest {
  private final TestClock clock = new TestClock();
  private TransportFixture fixture;

  @BeforeEach
  void start() {
    fixture = new TransportFixture(clock, spec -> spec);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void onlyTheNewestStreamsThatEndedStayResumableAndNoneAfterTheWindow() throws Exception {
    String session = fixture.initialize();
    List<String> primings = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      HttpResponse<String> pong = fixture.http.send(fixture.request(session).POST(HttpRequest.BodyPublishers.ofString(
          "{\"jsonrpc\":\"2.0\",\"id\":" + (10 + i) + ",\"method\":\"ping\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(pong.body()).startsWith("id: ").contains("\"id\":" + (10 + i));
      primings.add(pong.body().lines().findFirst().orElseThrow().substring(4));
    }

    assertThat(resume(session, primings.get(0)).statusCode()).as("the oldest of 4, beyond the 3 kept").isEqualTo(404);
    HttpResponse<String> newest = resume(session, primings.get(3));
    assertThat(newest.statusCode()).isEqualTo(200);
    assertThat(newest.body()).contains("\"id\":13");

    clock.advance(StreamableHttp.RESUME_WINDOW.plusSeconds(1));
    assertThat(resume(session, primings.get(3)).statusCode()).as("past the window").isEqualTo(404);
  }

  private HttpResponse<String> resume(String session, String lastEventId) throws Exception {
    return fixture.http.send(fixture.request(session).header("Last-Event-ID", lastEventId).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}

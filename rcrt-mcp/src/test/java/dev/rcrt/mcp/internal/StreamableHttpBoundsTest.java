package dev.rcrt.mcp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.testing.TestClock;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the transport keeps is bounded: for clients that come back, by count as well as by text (a
 * flood of small requests leaves at most the newest streams resumable, and a stream past the
 * resume window is gone even when nothing else happened since); sessions, by count in memory and
 * by time in the store.
 */
class StreamableHttpBoundsTest {
  private final TestClock clock = new TestClock();
  private final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().clock(clock).build();
  private TransportFixture fixture;

  @BeforeEach
  void start() {
    fixture = new TransportFixture(clock, store, 2, spec -> spec);
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
      HttpResponse<String> pong = fixture.ping(session, 10 + i);
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

  @Test
  void sessionsBeyondTheBoundAreLetGoFromMemoryAndTakenUpFromTheStoreOnTheirNextRequest() throws Exception {
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sessions.add(fixture.initialize());
      clock.advance(Duration.ofSeconds(1));
    }
    assertThat(fixture.transport.sessionsHeld()).as("at most 2 held").isEqualTo(2);

    HttpResponse<String> first = fixture.ping(sessions.get(0), 20);
    assertThat(first.statusCode()).as("the oldest, let go, is taken up again").isEqualTo(200);
    assertThat(first.body()).contains("\"id\":20");
    assertThat(fixture.transport.sessionsHeld()).isEqualTo(2);
  }

  @Test
  void aSessionNeverDeletedLeavesTheStoreADayAfterItsInitialize() throws Exception {
    String session = fixture.initialize();
    try (TransportFixture other = new TransportFixture(clock, store, 2, spec -> spec)) {
      clock.advance(Duration.ofHours(23));
      assertThat(other.ping(session, 30).statusCode()).as("another process takes it up within the day").isEqualTo(200);
      clock.advance(Duration.ofHours(2));
      try (TransportFixture third = new TransportFixture(clock, store, 2, spec -> spec)) {
        assertThat(third.ping(session, 31).statusCode()).as("not after it: the client starts a new session").isEqualTo(404);
      }
    }
    assertThat(store.purgeExpired()).as("the session's record, and the two of the ping's stream at hour 23 (kept 1 h 5 min)").isEqualTo(3);
  }

  private HttpResponse<String> resume(String session, String lastEventId) throws Exception {
    return fixture.http.send(fixture.request(session).header("Last-Event-ID", lastEventId).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}

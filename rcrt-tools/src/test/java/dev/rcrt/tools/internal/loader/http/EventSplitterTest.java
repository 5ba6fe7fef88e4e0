package dev.rcrt.tools.internal.loader.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Server-sent events split as the WHATWG event-stream format reads them, whatever the chunks. */
class EventSplitterTest {
  @Test
  void eventsAreSplitAtBlankLinesWithEveryLineEndAndAnyChunking() {
    String stream = "data: one\r\n\r\n: a comment\nevent: x\ndata:two\ndata:  lines\n\nid: 3\n\ndata: three\r\rdata: ünï\n\nstop";
    byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
    for (int size = 1; size <= bytes.length; size++) { // every chunk size, so chunks split lines, line ends and characters
      List<String> seen = new ArrayList<>();
      EventSplitter splitter = new EventSplitter(data -> !seen.add(data));
      for (int at = 0; at < bytes.length; at += size) {
        assertThat(splitter.feed(bytes, at, Math.min(size, bytes.length - at))).isEqualTo(-1);
      }
      assertThat(seen).as("chunks of %d bytes", size).containsExactly("one", "two\n lines", "three", "ünï");
    }
  }

  @Test
  void theReadingStopsAtTheEndOfTheEventStopAtAccepts() {
    byte[] bytes = "data: fine\n\ndata: bad\n\ndata: never read\n\n".getBytes(StandardCharsets.UTF_8);
    EventSplitter splitter = new EventSplitter(data -> data.equals("bad"));
    int upTo = splitter.feed(bytes, 0, bytes.length);
    assertThat(new String(bytes, 0, upTo, StandardCharsets.UTF_8)).isEqualTo("data: fine\n\ndata: bad\n\n");
  }
}

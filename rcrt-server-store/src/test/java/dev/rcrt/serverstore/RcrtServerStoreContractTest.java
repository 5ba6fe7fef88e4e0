package dev.rcrt.serverstore;

import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.testing.BreadcrumbStoreContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link RcrtServerStore} against {@link FakeRcrtServer} (RCRT's REST API and event stream, with
 * its quirks) passes the store contract, except where RCRT itself cannot.
 */
class RcrtServerStoreContractTest extends BreadcrumbStoreContract {
  private FakeRcrtServer server;
  private RcrtServerStore rcrt;

  @Override
  protected BreadcrumbStore newStore(Clock clock) {
    try {
      server = new FakeRcrtServer(clock, true, 200);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rcrt = RcrtServerStore.builder(server.baseUri().toString())
        .credentials("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-0000000000bb", java.util.List.of("curator"))
        .reconnectDelay(Duration.ofMillis(100))
        .build();
    return rcrt;
  }

  @AfterEach
  void stop() {
    rcrt.close();
    server.close();
  }

  @Override
  protected String noDeleteEvents() {
    return "RCRT's event stream carries no delete events (its server emits none); creates and updates were checked";
  }

  @Override
  protected String noUsageCount() {
    return "RCRT answers a create with its id only, so the store reads the record back, and the server counts that read"
        + " against a usage TTL's max_reads: read counts are the server's, not the caller's gets";
  }

  @Override
  protected String noPurge() {
    return "RCRT expires records itself (its hygiene runner); purgeExpired() against a server does nothing, as documented";
  }
}

package dev.rcrt.tools.testing;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolCallOptions;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;

/**
 * What the trust tests share: one store, runners under the plain default policy unless a test
 * configures otherwise (closed after each test), two known secrets, and records as a host or as
 * some tool wrote them.
 */
public abstract class TrustFixture {
  /** Secrets {@code A} and {@code B}, whose values must never show up anywhere recorded. */
  protected static final SecretResolver SECRETS = SecretResolver.environment(Map.of("A", "alpha-secret-111", "B", "bravo-secret-222"));
  /** The defaults plus loopback, so that only trust (not the address check) stands between a planted tool and a local server. */
  protected static final ToolTrustPolicy LOOPBACK = ToolTrustPolicy.builder().allowNetwork("127.0.0.0/8").build();

  protected final InMemoryBreadcrumbStore store = InMemoryBreadcrumbStore.builder().eventExecutor(Runnable::run).build();
  protected final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeRunners() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** A runner over the store with {@link #SECRETS}, configured by the test; closed after it. */
  protected ToolRunner runner(Consumer<ToolRunner.Builder> configure) {
    ToolRunner.Builder b = ToolRunner.builder(store).secretResolver(SECRETS);
    configure.accept(b);
    ToolRunner r = b.build();
    closing.add(r);
    return r;
  }

  /** Calls {@code tool} as agent {@code agent-1}. */
  protected ToolResponse call(ToolRunner runner, String tool, String input) {
    return runner.call(ToolRequest.of(tool, RcrtJson.parse(input), "agent-1"), ToolCallOptions.by(Principal.agent("agent-1")));
  }

  /** A record as the host writes it. */
  protected Breadcrumb define(String schema, String context) {
    return store.create(BreadcrumbCreate.builder(schema, "t").context(RcrtJson.parse(context)).build());
  }

  /** A record as it would be after some tool wrote it (for example under a permissive runner sharing the store). */
  protected Breadcrumb planted(String writer, String schema, String context) {
    return store.create(BreadcrumbCreate.builder(schema, "planted").context(RcrtJson.parse(context)).createdBy(writer).build());
  }

  /** The response to request {@code requestId}, waiting up to 10 s for it. */
  protected ToolResponse responseTo(String requestId) throws Exception {
    CompletableFuture<Breadcrumb> answered = new CompletableFuture<>();
    try (Subscription s = store.subscribe(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + requestId), e -> answered.complete(e.breadcrumb()))) {
      List<Breadcrumb> already = store.search(Selector.schema(ToolResponse.SCHEMA).withAllTags("request:" + requestId), 1, 0);
      return ToolResponse.fromBreadcrumb(already.isEmpty() ? answered.get(10, TimeUnit.SECONDS) : already.get(0));
    }
  }
}

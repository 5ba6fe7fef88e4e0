package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.ToolException;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A JavaScript tool: a small pool of {@link JsSandbox} contexts for the current version of its code,
 * reused across calls. When the code lives in another breadcrumb, each call checks that
 * breadcrumb's checksum and swaps in a new pool when the code changed.
 */
final class JsTool implements Invoker {
  private final Supplier<JsProgram> source;
  private final NetworkGuard network;
  private final JsRuntime runtime;
  private final int maxContexts;
  private volatile Pool pool;

  JsTool(JsProgram first, Supplier<JsProgram> source, NetworkGuard network, JsRuntime runtime, int maxContexts) {
    this.source = source;
    this.network = network;
    this.runtime = runtime;
    this.maxContexts = maxContexts;
    this.pool = new Pool(first);
    pool.release(pool.create());
  }

  @Override
  public JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) throws InterruptedException {
    Pool p = current();
    JsSandbox sandbox = p.acquire(scope);
    try {
      return sandbox.call(input, context, scope);
    } finally {
      p.release(sandbox);
    }
  }

  private Pool current() {
    JsProgram latest = source.get();
    Pool p = pool;
    if (!latest.checksum().equals(p.program.checksum())) {
      synchronized (this) {
        if (!latest.checksum().equals(pool.program.checksum())) {
          Pool old = pool;
          pool = new Pool(latest);
          old.close();
        }
        p = pool;
      }
    }
    return p;
  }

  @Override
  public boolean enforcesDeadline() {
    return true;
  }

  @Override
  public void close() {
    pool.close();
  }

  /** The contexts of one program version. */
  private final class Pool {
    final JsProgram program;
    final ArrayBlockingQueue<JsSandbox> idle = new ArrayBlockingQueue<>(maxContexts);
    final AtomicInteger size = new AtomicInteger();
    volatile boolean closed;

    Pool(JsProgram program) {
      this.program = program;
    }

    JsSandbox create() {
      size.incrementAndGet();
      try {
        return new JsSandbox(program, network, runtime);
      } catch (RuntimeException e) {
        size.decrementAndGet();
        throw e;
      }
    }

    JsSandbox acquire(CallScope scope) throws InterruptedException {
      JsSandbox ready = idle.poll();
      if (ready != null) {
        return ready;
      }
      if (size.get() < maxContexts) {
        return create();
      }
      ready = idle.poll(scope.remaining().toMillis(), TimeUnit.MILLISECONDS);
      if (ready == null) {
        throw new ToolException(
            "tool_timeout",
            "tool '" + program.tool() + "' timed out after " + scope.limit().toMillis()
                + " ms waiting for one of its " + maxContexts + " busy JavaScript contexts");
      }
      return ready;
    }

    void release(JsSandbox sandbox) {
      if (closed || sandbox.broken() || !idle.offer(sandbox)) {
        sandbox.close();
        size.decrementAndGet();
      }
    }

    void close() {
      closed = true;
      JsSandbox s;
      while ((s = idle.poll()) != null) {
        s.close();
      }
    }
  }
}

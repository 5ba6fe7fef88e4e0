package dev.rcrt.tools.internal.loader.js;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.tools.ToolContext;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.loader.Invoker;
import dev.rcrt.tools.internal.trust.NetworkGuard;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A JavaScript tool whose every call runs in a context of its own: a context serves one call and is
 * then discarded, so no call can see globals, patched prototypes or module state another call left
 * (another user's input, a rotated secret). Creating a context costs far more than a call (the
 * JavaScript realm is built anew), so a few fresh contexts are prepared ahead on the runtime's
 * preparer thread: a call takes a ready one when there is one and creates its own otherwise, and
 * used contexts are closed off the calling thread. When the code lives in another breadcrumb, each
 * call checks that breadcrumb's checksum and switches to fresh contexts of the new code.
 */
final class JsTool implements Invoker {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JsTool.class);
  /** Fresh contexts kept ready per tool. */
  static final int SPARES = 2;

  private final Supplier<JsProgram> source;
  private final NetworkGuard network;
  private final JsRuntime runtime;
  private volatile Spares spares;

  JsTool(JsProgram first, Supplier<JsProgram> source, NetworkGuard network, JsRuntime runtime) {
    this.source = source;
    this.network = network;
    this.runtime = runtime;
    this.spares = new Spares(first);
    spares.ready.add(spares.create()); // evaluates the code now, so a broken module fails the load
    spares.refill();
  }

  @Override
  public JsonNode invoke(JsonNode input, ToolContext context, CallScope scope) {
    Spares current = current();
    JsSandbox sandbox = current.take();
    try {
      return sandbox.call(input, context, scope);
    } finally {
      runtime.preparer().execute(sandbox::close);
    }
  }

  private Spares current() {
    JsProgram latest = source.get();
    Spares s = spares;
    if (!latest.checksum().equals(s.program.checksum())) {
      synchronized (this) {
        if (!latest.checksum().equals(spares.program.checksum())) {
          Spares old = spares;
          spares = new Spares(latest);
          old.close();
        }
        s = spares;
      }
    }
    return s;
  }

  @Override
  public boolean enforcesDeadline() {
    return true;
  }

  @Override
  public void close() {
    spares.close();
  }

  /** Fresh contexts of one program version, each for one call. */
  private final class Spares {
    final JsProgram program;
    final java.util.concurrent.BlockingQueue<JsSandbox> ready = new java.util.concurrent.LinkedBlockingQueue<>();
    final AtomicInteger preparing = new AtomicInteger();
    volatile boolean closed;

    Spares(JsProgram program) {
      this.program = program;
    }

    JsSandbox create() {
      return new JsSandbox(program, network, runtime);
    }

    /** A ready context, or one made now; more are prepared in the background. */
    JsSandbox take() {
      JsSandbox fresh = ready.poll();
      refill();
      return fresh != null ? fresh : create();
    }

    void refill() {
      while (!closed && ready.size() + preparing.get() < SPARES) {
        preparing.incrementAndGet();
        runtime.preparer().execute(() -> {
          try {
            JsSandbox s = create();
            if (closed || !ready.offer(s)) {
              s.close();
            }
          } catch (RuntimeException e) {
            LOG.debug("preparing a context for tool '{}' failed", program.tool(), e);
          } finally {
            preparing.decrementAndGet();
          }
        });
      }
    }

    void close() {
      closed = true;
      JsSandbox s;
      while ((s = ready.poll()) != null) {
        s.close();
      }
    }
  }
}

package dev.rcrt.tools;

/**
 * A link of the {@link ToolRunner}'s execution chain, in the manner of OkHttp's {@code
 * Interceptor}: it sees a call on the way in, passes it on with {@link ToolChain#proceed} (or
 * answers it itself, for a cache or a rate limit), and sees the response on the way out.
 *
 * <p>Every path runs the same chain: {@link ToolRunner#call direct calls}, agents, {@link
 * ToolRunner#listen() listeners} in event mode, the CLI and specialists (agents as tools). The
 * built-in links run in this order:
 *
 * <pre>
 * record → resolve → [application interceptors] → trust → approval → validate input
 *        → scrub secrets → [runtime interceptors] → run under the deadline
 * </pre>
 *
 * and the response goes back the other way (scrubbed, output validated, recorded). Application
 * interceptors ({@link ToolRunner.Builder#addInterceptor}) see every resolved call, including those
 * the policy or approval then refuses; runtime interceptors ({@link
 * ToolRunner.Builder#addRuntimeInterceptor}) see only calls that will run, with validated input,
 * and their time counts against the tool's deadline.
 *
 * <p>An interceptor must call {@code proceed} at most once, or not at all to answer itself. One
 * that calls it twice, returns null or throws is named in the error response; the call never
 * escapes the runner. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ToolInterceptor {
  /**
   * @return the response, normally {@code chain.proceed(chain.request())}; never null
   */
  ToolResponse intercept(ToolChain chain);
}

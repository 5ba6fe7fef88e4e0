package dev.rcrt.tools;

import dev.rcrt.core.Principal;
import dev.rcrt.core.spi.Leases;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How {@link ToolRunner#call(ToolRequest, ToolCallOptions)} runs one call. Immutable; the {@code
 * with…} methods return copies.
 *
 * @param caller who asks; stamped on the recorded request and judged by the {@link
 *     ToolTrustPolicy}. Host code chooses it; tools and models never can.
 * @param tags added to the request and response breadcrumbs, such as {@code session:<id>}; copied
 * @param tool the definition to run, as it was offered (for example to a model), or null to
 *     resolve the newest trusted tool by name. A pinned definition runs only while its breadcrumb is
 *     still at that version and trusted; otherwise the call fails with {@code tool_changed}.
 * @param handler the code for a pinned {@code tool} whose implementation type the runner does not
 *     load itself (an agent offered as a tool), or null
 * @param claim the claim the caller acts under (an agent run's), or null: the request record is then
 *     written fenced by it ({@link Leases.Held#create}), so a caller that lost its claim (stalled
 *     past its lease, taken over) gets a {@link dev.rcrt.core.ClaimLostException} from {@code call}
 *     and {@code submit} and the tool does not run
 * @param exchange where the tool's progress and log messages go and who answers its sampling and
 *     elicitation ({@link ToolContext#exchange()}); {@link ToolExchange#none()} by default. Only
 *     {@code call} runs the tool in this process with it; {@code submit} leaves the call to a runner
 *     that listens, whose calls have none.
 */
public record ToolCallOptions(
    Principal caller, List<String> tags, @Nullable ToolDefinition tool, @Nullable ToolHandler handler, Leases.@Nullable Held claim,
    ToolExchange exchange) {

  /** Options without a claim. */
  public ToolCallOptions(Principal caller, List<String> tags, @Nullable ToolDefinition tool, @Nullable ToolHandler handler) {
    this(caller, tags, tool, handler, null, ToolExchange.none());
  }

  /** Validates and copies. */
  public ToolCallOptions {
    Objects.requireNonNull(caller, "caller");
    Objects.requireNonNull(exchange, "exchange");
    tags = List.copyOf(tags);
    if (handler != null && tool == null) {
      throw new IllegalArgumentException("a handler needs the pinned tool it implements");
    }
  }

  /** A call by the host, without tags, resolving the tool by name. */
  public static ToolCallOptions host() {
    return new ToolCallOptions(Principal.host(), List.of(), null, null);
  }

  /** A call by {@code caller}, without tags, resolving the tool by name. */
  public static ToolCallOptions by(Principal caller) {
    return new ToolCallOptions(caller, List.of(), null, null);
  }

  /** The same options with {@code more} tags added. */
  public ToolCallOptions withTags(String... more) {
    List<String> all = new ArrayList<>(tags);
    all.addAll(List.of(more));
    return new ToolCallOptions(caller, all, tool, handler, claim, exchange);
  }

  /** The same options, running exactly {@code offered}. */
  public ToolCallOptions withTool(ToolDefinition offered) {
    return new ToolCallOptions(caller, tags, Objects.requireNonNull(offered, "offered"), handler, claim, exchange);
  }

  /** The same options, running {@code code} for the pinned tool. */
  public ToolCallOptions withHandler(ToolHandler code) {
    return new ToolCallOptions(caller, tags, tool, Objects.requireNonNull(code, "code"), claim, exchange);
  }

  /** The same options, writing the request fenced by {@code held} (see {@link #claim()}). */
  public ToolCallOptions withClaim(Leases.Held held) {
    return new ToolCallOptions(caller, tags, tool, handler, Objects.requireNonNull(held, "held"), exchange);
  }

  /** The same options, with {@code back} as the call's way back to its caller (see {@link #exchange()}). */
  public ToolCallOptions withExchange(ToolExchange back) {
    return new ToolCallOptions(caller, tags, tool, handler, claim, Objects.requireNonNull(back, "back"));
  }
}

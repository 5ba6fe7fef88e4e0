package dev.rcrt.cli.internal;

import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ApprovalHandler;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRequest;
import java.io.IOException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The {@code --approve} option shared by the commands that run tools, and the approval it gives:
 * tools that need approval ({@code requires_approval: true}) run with {@code --approve}; otherwise
 * a person at a terminal is asked on stderr and answers on stdin; without a terminal they are denied
 * with a note saying how to allow them.
 */
public final class ApprovalOption {
  @Option(names = "--approve", description = "Run tools that need approval (requires_approval) without asking.")
  boolean approveAll;

  /**
   * The approval handler for a command whose standard input is not a person's (an MCP server on
   * stdio): with {@code --approve} every tool runs, without it tools that need approval are
   * denied with a note.
   */
  public ApprovalHandler withoutTerminal(Cli cli) {
    return (ToolRequest request, ToolDefinition tool) -> {
      if (!approveAll) {
        cli.note("tool '" + tool.name() + "' needs approval and was denied: start the server with --approve to allow it");
      }
      return approveAll;
    };
  }

  /**
   * The approval for a command talking to {@code cli} whose runs may wait: with {@code --approve}
   * every tool runs; with a person at the terminal they are asked; otherwise, on a store other
   * processes share ({@code shared}), none: the call writes an approval request and waits for a
   * decision ({@code ./rcrt runs approve}); on the in-memory store, which nobody else can reach,
   * the call is denied with a note.
   */
  public @Nullable ApprovalHandler handler(Cli cli, boolean shared) {
    return shared && !approveAll && !cli.interactive() ? null : handler(cli);
  }

  /**
   * The approval for a service ({@code ./rcrt runner}): with {@code --approve} every tool runs;
   * otherwise none, so a call that needs approval writes an approval request and waits for a
   * decision record.
   */
  public @Nullable ApprovalHandler forService() {
    return approveAll ? (request, tool) -> true : null;
  }

  /** The approval handler for a command talking to {@code cli}. */
  public ApprovalHandler handler(Cli cli) {
    return (ToolRequest request, ToolDefinition tool) -> {
      if (approveAll) {
        return true;
      }
      if (!cli.interactive()) {
        cli.note("tool '" + tool.name() + "' needs approval and was denied: no terminal to ask on; pass --approve to allow it");
        return false;
      }
      cli.err().print("rcrt: run tool '" + tool.name() + "' with " + RcrtJson.write(request.input()) + "? [y/N] ");
      cli.err().flush();
      try {
        String answer = cli.in().readLine();
        return answer != null && answer.strip().toLowerCase(Locale.ROOT).matches("y|yes");
      } catch (IOException e) {
        return false;
      }
    };
  }
}

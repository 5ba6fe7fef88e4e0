package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Subscription;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(
    name = "call",
    description = {
      "Run one tool through the ToolRunner, as an agent would: input and output validated, a",
      "tool.request.v1 and a tool.response.v1 written. Prints the output JSON; on failure exits 1",
      "with the error on stderr (the schema pointer, the timeout, the HTTP status, the exit code).",
      "secret:NAME references are read from environment variables. A tool that needs approval",
      "(requires_approval) runs with --approve, or when a person at the terminal says yes. While the",
      "tool runs, the tool.request.v1 records it writes are run too (RCRT's workflow tool does so), if",
      "the trust policy lets it request tools (--allow-requester-tool)."
    })
public final class ToolCallCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin StoreOptions breadcrumbs;

  @Mixin ApprovalOption approval;

  @Mixin TrustOption trust;

  @Parameters(index = "0", paramLabel = "NAME", description = "The tool's name.")
  String name = "";

  @Parameters(index = "1", arity = "0..1", paramLabel = "JSON", defaultValue = "{}", converter = Converters.Json.class,
      description = "The input object (default: {}).")
  JsonNode input;

  public ToolCallCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    try (Workspace workspace = new Workspace(breadcrumbs, cli);
        ToolRunner runner = workspace.runner(approval.handler(cli), trust.policy())) {
      ToolResponse response;
      try (Subscription nested = runner.listen()) {
        response = runner.call(ToolRequest.of(name, input, "cli"));
      }
      if (!response.success()) {
        cli.note(response.error() + " [" + response.errorCode() + "]");
        return 1;
      }
      com.fasterxml.jackson.databind.JsonNode output = response.requireOutput();
      cli.out().println(RcrtJson.writePretty(output));
      if (output.path("complete").isBoolean() && !output.get("complete").asBoolean()) { // a search by meaning that did not see every record
        cli.note("the answer comes from part of the store: " + output.path("not_indexed").asLong() + " records were not indexed yet;"
            + " ask again, or wait longer with wait_ms");
      }
      return 0;
    }
  }
}

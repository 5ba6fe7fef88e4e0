package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.rcrt.a2a.A2aImport;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import io.a2a.spec.AgentCard;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "import",
    description = {
      "Print an A2A agent's skills as tool records (a JSON array, ready for --breadcrumbs): one tool.v1 per",
      "skill of its Agent Card, named ALIAS.SKILL, of implementation type a2a (the tool sends its input's",
      "message to the agent and returns the task's answer). Headers are kept as given, secret:NAME values",
      "included (resolved now, to read the card, and again at each call). Records are trusted as their writer",
      "is: loaded from a file by the host they are offered; calls need --allow-network for the agent's address."
    })
public final class A2aImportCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin A2aPeer peer;

  @Option(names = "--alias", paramLabel = "NAME", description = "Prefix of the tool names (default: from the card's name).")
  @Nullable String alias;

  @Option(names = "--bearer-token", paramLabel = "secret:NAME", description = "Send Authorization: Bearer with this secret's value at each call.")
  @Nullable String bearerToken;

  public A2aImportCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() {
    AgentCard card = peer.client(cli).card(peer.cardUrl());
    List<BreadcrumbCreate> records = A2aImport.records(card, peer.cardUrl(), alias, peer.headers, bearerToken);
    ArrayNode out = RcrtJson.toTree(records);
    cli.out().println(out.toPrettyString());
    cli.note(records.size() + " tool(s) of A2A agent '" + card.name() + "' imported as " + (alias != null ? alias : A2aImport.aliasOf(card)) + ".*");
    return 0;
  }
}

package dev.rcrt.cli.internal;

import io.a2a.spec.AgentCard;
import io.a2a.util.Utils;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "card", description = "Print an A2A agent's Agent Card (JSON): its name, skills, capabilities, security schemes and endpoint.")
public final class A2aCardCommand implements Callable<Integer> {
  private final Cli cli;

  @Mixin A2aPeer peer;

  public A2aCardCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    AgentCard card = peer.client(cli).card(peer.cardUrl());
    cli.out().println(Utils.OBJECT_MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(card));
    return 0;
  }
}

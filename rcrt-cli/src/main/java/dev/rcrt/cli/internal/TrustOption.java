package dev.rcrt.cli.internal;

import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The capability options shared by the commands that run tools: what the default trust policy
 * refuses unless the operator allows it.
 */
public final class TrustOption {
  @Option(names = "--allow-network", paramLabel = "CIDR", converter = Converters.Cidr.class,
      description = "Let HTTP tools and fetch reach this internal network, e.g. 127.0.0.0/8 (loopback, private and link-local addresses are refused by default). Repeatable.")
  List<String> networks = new ArrayList<>();

  @Option(names = "--allow-image", paramLabel = "PATTERN",
      description = "Let container tools run images matching PATTERN (* matches anything), e.g. ghcr.io/acme/*. None by default. Repeatable.")
  List<String> images = new ArrayList<>();

  @Option(names = "--allow-command", paramLabel = "PATTERN",
      description = "Let tool records start programs matching PATTERN (* matches anything), such as MCP servers: npx, /opt/mcp/*. None by default. Repeatable.")
  List<String> commands = new ArrayList<>();

  @Option(names = "--allow-module-dir", paramLabel = "DIR", converter = Converters.ExistingPath.class,
      description = "Let module tools load jars from DIR. None by default. Repeatable.")
  List<Path> moduleDirs = new ArrayList<>();

  @Option(names = "--trusted-key", paramLabel = "PEM", converter = Converters.PublicKeyFile.class,
      description = "Accept tools, configs and agents only when signed (./rcrt sign) by this publisher's Ed25519 public key"
          + " (PEM). Repeatable. For stores that other processes write to.")
  List<PublicKey> publishers = new ArrayList<>();

  @Option(names = "--allow-requester-tool", paramLabel = "NAME",
      description = "Let tool NAME request other tools (write tool.request.v1 records that run), as an orchestrator such as"
          + " RCRT's workflow does. Only the host and agents may request tools by default. Repeatable.")
  List<String> requesterTools = new ArrayList<>();

  /** The default policy with these allowances. */
  public ToolTrustPolicy policy() {
    ToolTrustPolicy.Builder b = ToolTrustPolicy.builder()
        .howToAllow(ToolTrustPolicy.Builder.switches("--allow-network", "--allow-image", "--allow-command", "--allow-module-dir", " "));
    b.allowRequesterTools(requesterTools.toArray(String[]::new));
    networks.forEach(b::allowNetwork);
    b.allowImages(images.toArray(String[]::new));
    b.allowCommands(commands.toArray(String[]::new));
    moduleDirs.forEach(b::allowModuleLocation);
    if (!publishers.isEmpty()) {
      b.requireSignatures(publishers.toArray(PublicKey[]::new));
    }
    return b.build();
  }
}

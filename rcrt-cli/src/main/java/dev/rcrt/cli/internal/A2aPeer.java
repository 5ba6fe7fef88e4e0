package dev.rcrt.cli.internal;

import dev.rcrt.a2a.A2aClient;
import dev.rcrt.tools.SecretResolver;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The remote agent a command talks to: its card's URL, the headers sent, the time allowed. */
public final class A2aPeer {
  @Parameters(index = "0", paramLabel = "URL",
      description = "The agent's Agent Card URL, or its base URL (/.well-known/agent-card.json is added when the path does not end in .json).")
  String url = "";

  @Option(names = "--header", paramLabel = "NAME=VALUE", description = "An HTTP header sent to the agent; VALUE may be secret:NAME (from the environment). Repeatable.")
  Map<String, String> headers = new LinkedHashMap<>();

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120", description = "Limit of each exchange (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 120;

  /** The card's URL. */
  URI cardUrl() {
    return A2aClient.cardUrl(url);
  }

  /** A client sending the headers, their {@code secret:} values read from the environment now. */
  A2aClient client(Cli cli) {
    SecretResolver secrets = SecretResolver.environment(cli.env());
    Map<String, String> resolved = new LinkedHashMap<>();
    headers.forEach((k, v) -> resolved.put(k, !v.startsWith("secret:") ? v
        : secrets.resolve(v.substring("secret:".length())).orElseThrow(() -> new IllegalArgumentException(
            "secret '" + v.substring("secret:".length()) + "' of header " + k + " is not set in the environment"))));
    return A2aClient.of(resolved, Duration.ofSeconds(timeoutSeconds));
  }
}

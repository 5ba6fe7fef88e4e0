package dev.rcrt.tools;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where secret values come from. Tool breadcrumbs never hold secrets: they hold references of the
 * form {@code secret:NAME} (in {@code tool.config.v1} configs, HTTP {@code auth.secret}, headers)
 * or list names in {@code required_secrets}. The runner asks the resolver for the value at call
 * time only, hands it to the tool, and removes it from anything it records: it never appears in a
 * breadcrumb, a log line, an error message or a prompt.
 *
 * <p>The default, {@link #environment()}, reads environment variables. Hosts plug in a vault by
 * implementing this interface. Implementations must be thread-safe and must not log values.
 */
public interface SecretResolver {

  /**
   * The value of secret {@code name} (without the {@code secret:} prefix).
   *
   * @return the value, or empty if this resolver does not know the name
   */
  Optional<String> resolve(String name);

  /** Resolves from the process environment; see {@link #environment(Map)}. */
  static SecretResolver environment() {
    return environment(System.getenv());
  }

  /**
   * Resolves {@code NAME} from {@code env}: first the name as written, then upper-cased with every
   * character other than a letter or digit turned into {@code _} (so {@code
   * secret:my-tool-api-key} reads {@code MY_TOOL_API_KEY}).
   */
  static SecretResolver environment(Map<String, String> env) {
    Map<String, String> copy = Map.copyOf(env);
    return name -> {
      Objects.requireNonNull(name, "name");
      String value = copy.get(name);
      if (value == null) {
        value = copy.get(name.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
      }
      return Optional.ofNullable(value);
    };
  }
}

package dev.rcrt.tools.internal.chain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.TimeSource;
import dev.rcrt.tools.SecretResolver;
import dev.rcrt.tools.ToolChain;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.internal.CallScope;
import dev.rcrt.tools.internal.SecretValues;
import dev.rcrt.tools.internal.trust.ToolConfigs;

/**
 * Opens the call's secret scope (its trusted configuration, the secret names it is granted, its
 * deadline) and, on the way out, removes every secret value the runner knows (this call's, and
 * every earlier one's, in every form the runtime produced) from the output or the error before
 * anything outside the tool sees it.
 */
final class ScrubLink implements RealToolChain.Link {
  private final ToolConfigs configs;
  private final SecretResolver secrets;
  private final SecretValues known;
  private final TimeSource time;

  ScrubLink(ToolConfigs configs, SecretResolver secrets, SecretValues known, TimeSource time) {
    this.time = time;
    this.configs = configs;
    this.secrets = secrets;
    this.known = known;
  }

  @Override
  public String name() {
    return "scrub";
  }

  @Override
  public ToolResponse intercept(ToolChain chain) {
    CallState call = ((RealToolChain) chain).call();
    ToolDefinition tool = chain.tool();
    JsonNode config = configs.config(tool.name());
    CallScope scope = new CallScope(tool.name(), chain.timeout(), time, secrets, configs.grants(tool, config), known);
    call.config = config;
    call.scope = scope;
    ToolResponse r = chain.proceed(chain.request());
    if (r.success()) {
      JsonNode output = r.output();
      JsonNode clean = output == null ? null : scope.scrub(output);
      return clean == output ? r : new ToolResponse(r.requestId(), r.tool(), true, clean, null, null, r.executionTimeMs());
    }
    String error = r.error() == null ? "" : r.error();
    String clean = scope.scrub(error);
    return clean.equals(error) ? r : new ToolResponse(r.requestId(), r.tool(), false, null, clean, r.errorCode(), r.executionTimeMs());
  }
}

package dev.rcrt.tools.internal.trust;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.ContextMatch;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.internal.CallScope;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tool's configuration and the secrets it is granted. The configuration is the {@code config}
 * object of the newest {@code tool.config.v1} for the tool ({@code tool} or {@code tool_name})
 * whose writer the policy trusts; untrusted ones are skipped with a warning. A tool may resolve
 * {@code secret:NAME} only for the names its own (trusted) record declares, in {@code
 * required_secrets} or as references in its implementation ({@code auth.secret}, headers), and the
 * names in that trusted configuration: its {@code secret:NAME} references and the values of RCRT's
 * secret-id fields ({@code apiKeySecretId}, {@code api_key_secret_id}: any field ending {@code
 * SecretId} or {@code _secret_id}).
 */
public final class ToolConfigs {
  private static final Logger LOG = LoggerFactory.getLogger(ToolConfigs.class);
  private static final String SCHEMA = "tool.config.v1";
  private static final int SCAN = 20;

  private final BreadcrumbStore store;
  private final ToolTrustPolicy policy;
  private final Map<String, List<Selector>> selectors = new ConcurrentHashMap<>();
  private final Map<String, Grants> grants = new ConcurrentHashMap<>();

  public ToolConfigs(BreadcrumbStore store, ToolTrustPolicy policy) {
    this.store = store;
    this.policy = policy;
  }

  /** The tool's trusted configuration object, or an empty object. */
  public JsonNode config(String tool) {
    for (Selector selector : selectors.computeIfAbsent(tool, ToolConfigs::selectors)) {
      for (Breadcrumb b : store.search(selector, SCAN, 0)) {
        String untrusted = policy.whyUntrusted(b);
        if (untrusted != null) {
          LOG.warn("tool.config.v1 '{}' for tool '{}' ignored: {}", b.id(), tool, untrusted);
          continue;
        }
        if (b.context().path("config").isObject()) {
          return b.context().get("config");
        }
      }
    }
    return NONE;
  }

  /** The configuration of a tool without one; never handed out except through a copy. */
  private static final JsonNode NONE = RcrtJson.object();

  /** The selectors that find a tool's configs ({@code tool}, then RCRT's {@code tool_name}); built once per tool. */
  private static List<Selector> selectors(String tool) {
    return List.of(
        Selector.schema(SCHEMA).withMatch(ContextMatch.eq("$.tool", tool)),
        Selector.schema(SCHEMA).withMatch(ContextMatch.eq("$.tool_name", tool)));
  }

  /**
   * The secret names {@code tool} may resolve, given its trusted {@code config}: cached per tool
   * version while the configuration is the same object.
   */
  public Set<String> grants(ToolDefinition tool, JsonNode config) {
    String key = tool.sourceId() + "@" + tool.sourceVersion();
    Grants cached = grants.get(key);
    if (cached != null && cached.config == config) {
      return cached.names;
    }
    Set<String> names = computeGrants(tool, config);
    if (grants.size() > 10_000) {
      grants.clear();
    }
    grants.put(key, new Grants(config, names));
    return names;
  }

  private record Grants(JsonNode config, Set<String> names) {}

  private static Set<String> computeGrants(ToolDefinition tool, JsonNode config) {
    Set<String> names = new HashSet<>();
    for (JsonNode ref : tool.context().path("required_secrets")) {
      names.add(CallScope.nameOf(ref.asText()));
    }
    references(tool.implementation().spec(), names);
    references(config, names);
    return Set.copyOf(names);
  }

  private static void references(JsonNode json, Set<String> into) {
    if (json.isTextual() && CallScope.isReference(json.textValue())) {
      into.add(CallScope.nameOf(json.textValue()));
    } else if (json.isObject()) {
      json.properties().forEach(field -> {
        if (isSecretId(field.getKey()) && field.getValue().isTextual()) {
          into.add(CallScope.nameOf(field.getValue().textValue()));
        }
        references(field.getValue(), into);
      });
    } else if (json.isArray()) {
      json.forEach(child -> references(child, into));
    }
  }

  /** RCRT's configs name secrets in fields such as {@code apiKeySecretId} or {@code api_key_secret_id}. */
  private static boolean isSecretId(String field) {
    return field.endsWith("SecretId") || field.endsWith("_secret_id");
  }
}

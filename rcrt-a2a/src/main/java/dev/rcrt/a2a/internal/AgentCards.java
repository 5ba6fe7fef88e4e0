package dev.rcrt.a2a.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolExample;
import io.a2a.spec.AgentCapabilities;
import io.a2a.spec.AgentCard;
import io.a2a.spec.AgentSkill;
import io.a2a.spec.HTTPAuthSecurityScheme;
import io.a2a.spec.SecurityScheme;
import io.a2a.spec.TransportProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The A2A Agent Card of an agent record, derived on every request so that it shows the store as it
 * is: {@code name} from the record's {@code context.name} (else the agent id), {@code description}
 * from {@code context.description} (else a sentence naming its tools; never the system prompt,
 * which may be confidential), one skill for the agent as a whole and one per tool it may use (its
 * {@code tool_categories}, among the tools the runner trusts), streaming on and push
 * notifications off, the bearer scheme when the server takes a token, and protocol 0.3.0 over
 * JSON-RPC at {@code url}.
 */
public final class AgentCards {
  /** The A2A protocol version the SDK and this server speak. */
  public static final String PROTOCOL_VERSION = "0.3.0";

  private AgentCards() {}

  /**
   * The card.
   *
   * @param tools the tools the runner trusts (the agent's categories are applied here)
   * @param url where the agent's JSON-RPC endpoint is
   * @param bearer whether requests need {@code Authorization: Bearer}
   */
  public static AgentCard card(AgentDefinition agent, List<ToolDefinition> tools, String url, boolean bearer) {
    List<ToolDefinition> usable = agent.toolsInCategories(tools);
    String name = text(agent.context().path("name"), agent.agentId());
    List<String> toolNames = usable.stream().map(ToolDefinition::name).toList();
    String description = text(agent.context().path("description"),
        "Agent '" + agent.agentId() + "'" + (toolNames.isEmpty() ? "." : ", with the tools " + String.join(", ", toolNames) + "."));
    List<AgentSkill> skills = new ArrayList<>();
    skills.add(new AgentSkill.Builder()
        .id(agent.agentId()).name(name).description(description).tags(List.of("agent"))
        .examples(examples(agent.context().path("examples")))
        .build());
    for (ToolDefinition tool : usable) {
      skills.add(new AgentSkill.Builder()
          .id("tool:" + tool.name())
          .name(tool.name())
          .description(tool.description().isBlank() ? "The tool '" + tool.name() + "'." : tool.description())
          .tags(tool.category() == null ? List.of("tool") : List.of("tool", tool.category()))
          .examples(tool.examples().stream().map(ToolExample::description).filter(d -> d != null && !d.isBlank()).limit(3).toList())
          .build());
    }
    AgentCard.Builder card = new AgentCard.Builder()
        .name(name)
        .description(description)
        .url(url)
        .version(text(agent.context().path("version"), "1"))
        .protocolVersion(PROTOCOL_VERSION)
        .preferredTransport(TransportProtocol.JSONRPC.asString())
        .capabilities(new AgentCapabilities.Builder().streaming(true).pushNotifications(false).stateTransitionHistory(false).build())
        .defaultInputModes(List.of("text/plain", "application/json"))
        .defaultOutputModes(List.of("text/plain"))
        .skills(skills);
    if (bearer) {
      Map<String, SecurityScheme> schemes = Map.of("bearer", new HTTPAuthSecurityScheme.Builder()
          .scheme("bearer").description("Authorization: Bearer <token>, the token the server was started with").build());
      card.securitySchemes(schemes).security(List.of(Map.of("bearer", List.of())));
    }
    return card.build();
  }

  private static List<String> examples(JsonNode examples) {
    List<String> out = new ArrayList<>();
    examples.forEach(e -> {
      if (e.isTextual()) {
        out.add(e.asText());
      }
    });
    return out;
  }

  private static String text(JsonNode node, String otherwise) {
    return node.isTextual() && !node.asText().isBlank() ? node.asText() : otherwise;
  }
}

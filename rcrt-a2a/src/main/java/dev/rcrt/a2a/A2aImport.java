package dev.rcrt.a2a;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import io.a2a.spec.AgentCard;
import io.a2a.spec.AgentSkill;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A remote A2A agent's skills as tool records: one {@code tool.v1} per skill of its Agent Card,
 * named {@code <alias>.<skill id>} (the card's name made an alias unless one is given), described
 * by the skill's description and examples, of implementation type {@code a2a} ({@link
 * A2aToolRuntime}) pointing at the card and the skill; a card without skills gives one tool named
 * {@code <alias>}. The input is {@code {message, context_id?, task_id?}}. Record ids are derived from
 * the alias and the skill, so importing again updates in place.
 *
 * <p>What the card says is the remote's word: names are cut to {@code A-Z a-z 0-9 _ -}, texts to
 * 2,000 characters. The records are trusted as their writer is, like every record: loaded by the
 * host from a file (or signed) they are offered; calls still need the trust policy to allow the
 * card's and the agent's addresses.
 */
public final class A2aImport {
  /** The tag every imported record carries, {@code a2a:<alias>}. */
  public static final String TAG_PREFIX = "a2a:";

  private static final Pattern ALIAS = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private A2aImport() {}

  /**
   * The records for the skills of {@code card}, fetched from {@code cardUrl}.
   *
   * @param alias the tool-name prefix, or null for {@link #aliasOf the card's name}
   * @param headers sent with every call, values as given ({@code secret:NAME} stays a reference)
   * @param bearerToken a {@code secret:NAME} reference for {@code Authorization: Bearer}, or null
   * @throws IllegalArgumentException if {@code alias} is not 1 to 64 of {@code A-Z a-z 0-9 _ -}, or
   *     the bearer token is not a {@code secret:} reference
   */
  public static List<BreadcrumbCreate> records(AgentCard card, URI cardUrl, @Nullable String alias, Map<String, String> headers,
      @Nullable String bearerToken) {
    String prefix = alias != null ? alias : aliasOf(card);
    if (!ALIAS.matcher(prefix).matches()) {
      throw new IllegalArgumentException("A2A import alias " + (prefix.isBlank() ? "(empty)" : "'" + A2aClient.excerpt(prefix) + "'")
          + " must be 1 to 64 of A-Z a-z 0-9 _ -");
    }
    if (bearerToken != null && !bearerToken.startsWith("secret:")) {
      throw new IllegalArgumentException("the bearer token must be a secret:NAME reference; a token is never kept in a record");
    }
    List<AgentSkill> skills = card.skills() == null ? List.of() : card.skills();
    List<BreadcrumbCreate> out = new ArrayList<>();
    if (skills.isEmpty()) {
      out.add(record(card, cardUrl, prefix, null, prefix, cut(card.description()), List.of(), headers, bearerToken));
    }
    for (AgentSkill skill : skills) {
      String id = name(skill.id());
      String description = cut(card.description()) + " Skill '" + cut(skill.name()) + "': " + cut(skill.description());
      out.add(record(card, cardUrl, prefix + "." + id, skill.id(), prefix, description,
          skill.examples() == null ? List.of() : skill.examples(), headers, bearerToken));
    }
    return out;
  }

  private static BreadcrumbCreate record(AgentCard card, URI cardUrl, String name, @Nullable String skill, String alias, String description,
      List<String> examples, Map<String, String> headers, @Nullable String bearerToken) {
    ObjectNode context = RcrtJson.object();
    context.put("name", name);
    context.put("description", description);
    ObjectNode implementation = context.putObject("implementation").put("type", "a2a").put("card_url", cardUrl.toString());
    String endpoint = card.url() == null ? null : A2aToolRuntime.origin(card.url());
    if (endpoint != null && !endpoint.equals(A2aToolRuntime.origin(cardUrl.toString()))) {
      // the card read now names its endpoint on another origin: recorded, so the tool's credentials may go there (and only there)
      implementation.putArray("allowed_origins").add(endpoint);
    }
    if (skill != null) {
      implementation.put("skill", skill);
    }
    if (!headers.isEmpty()) {
      implementation.set("headers", RcrtJson.toTree(headers));
    }
    if (bearerToken != null) {
      implementation.put("bearer_token", bearerToken);
    }
    ObjectNode input = context.putObject("definition").putObject("inputSchema").put("type", "object");
    ObjectNode properties = input.putObject("properties");
    properties.putObject("message").put("type", "string").put("description", "What to ask the agent, in words");
    properties.putObject("context_id").put("type", "string").put("description", "The context_id of an earlier answer, to go on in that conversation");
    properties.putObject("task_id").put("type", "string").put("description", "The task_id of an answer whose state is input-required, to reply to it");
    input.putArray("required").add("message");
    input.put("additionalProperties", false);
    var listed = context.putArray("examples");
    examples.stream().limit(3).forEach(e -> listed.addObject().put("description", cut(e)).set("input", RcrtJson.object().put("message", cut(e))));
    return BreadcrumbCreate.builder("tool.v1", cut(card.name()) + (skill == null ? "" : ": " + cut(skill)))
        .id("a2a-" + alias + (skill == null ? "" : "-" + name.substring(alias.length() + 1).replace("_", "__")))
        .tags("tool", "tool:" + name, "workspace:tools", TAG_PREFIX + alias)
        .context(context)
        .build();
  }

  /** A short name for an agent: its card's name, lower case, with anything but letters, digits and {@code -} made {@code -}. */
  public static String aliasOf(AgentCard card) {
    String n = card.name() == null ? "" : card.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
    n = n.length() > 64 ? n.substring(0, 64) : n;
    return n.isEmpty() ? "agent" : n;
  }

  private static String name(String skillId) {
    String n = skillId.replaceAll("[^A-Za-z0-9_-]+", "_");
    n = n.length() > 64 ? n.substring(0, 64) : n;
    return n.isEmpty() ? "skill" : n;
  }

  private static String cut(@Nullable String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= 2000 ? text : text.substring(0, 2000) + "…";
  }
}

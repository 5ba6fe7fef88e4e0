package dev.rcrt.agui.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.agent.Run;
import dev.rcrt.agent.Runs;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.NotFoundException;
import dev.rcrt.core.Principal;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.VectorSearch;
import dev.rcrt.core.spi.Excerpts;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRunner;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The console's JSON API and its page, beside the AG-UI endpoint: what a person needs to see runs
 * and decide what waits. Every answer is read from the records at the time of the request.
 *
 * <ul>
 *   <li>{@code GET /} and {@code /console.js}, {@code /console.css}: the page (inside the jar);
 *   <li>{@code GET /api/agents}: the served agents, for the chat;
 *   <li>{@code GET /api/runs?status=S&limit=N}: the newest runs (all statuses unless {@code status},
 *       a {@link Run.Status#wire() wire name}, is given; at most {@code limit}, default 50, up to
 *       200), with agent, session, status, age and the calls that wait;
 *   <li>{@code GET /api/runs/<id>}: one run's trail, oldest first: every record with its schema,
 *       writer, time and context (a secret record's context is left out);
 *   <li>{@code POST /api/runs/<id>/calls/<call>} with {@code {decision: "approve"|"deny", reason?,
 *       approver}}: the decision, written as {@code user:<approver>}, which must be one of the
 *       console's approvers (otherwise 403: the console decides nothing for anyone else);
 *   <li>{@code GET /api/tools}: the tool catalog as the runner discovers it, with why a tool cannot
 *       run here;
 *   <li>{@code GET /api/search?q=TEXT&nn=N}: search by meaning (at most 20), secret records left out.
 * </ul>
 *
 * Errors are {@link NotFoundException} (404) and {@link ValidationException} (400), which the
 * endpoint answers as JSON; {@link Forbidden} is a 403.
 */
public final class Console {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Map<String, String> ASSETS = Map.of(
      "/", "index.html", "/index.html", "index.html", "/console.js", "console.js", "/console.css", "console.css");

  /** A request the console refuses to act on for this caller (403). */
  public static final class Forbidden extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Forbidden(String message) {
      super(message);
    }
  }

  private final BreadcrumbStore store;
  private final Runs runs;
  private final ToolRunner runner;
  private final Set<String> approvers;

  /**
   * @param approvers the names whose decisions the console writes ({@code user:<name>}); empty: it
   *     decides nothing
   */
  public Console(BreadcrumbStore store, Runs runs, ToolRunner runner, Set<String> approvers) {
    this.store = store;
    this.runs = runs;
    this.runner = runner;
    this.approvers = Set.copyOf(approvers);
  }

  /** A file of the page: its content type and bytes. */
  public record Asset(String type, byte[] bytes) {}

  /** The page's asset at {@code path}, or null when there is none. */
  public static @Nullable Asset asset(String path) throws IOException {
    String name = ASSETS.get(path);
    if (name == null) {
      return null;
    }
    try (InputStream in = Console.class.getResourceAsStream("/dev/rcrt/agui/console/" + name)) {
      if (in == null) {
        return null;
      }
      String type = name.endsWith(".html") ? "text/html; charset=utf-8" : name.endsWith(".js") ? "text/javascript; charset=utf-8"
          : "text/css; charset=utf-8";
      return new Asset(type, in.readAllBytes());
    }
  }

  /** Answers a {@code GET /api/…}; {@code query} holds the decoded query parameters. */
  public JsonNode get(String path, Map<String, String> query) {
    if (path.equals("/api/agents")) {
      ArrayNode out = RcrtJson.array();
      for (String id : AgentDefinition.ids(store)) {
        out.addObject().put("id", id);
      }
      return out;
    }
    if (path.equals("/api/runs")) {
      return runs(query);
    }
    if (path.startsWith("/api/runs/") && path.indexOf('/', "/api/runs/".length()) < 0) {
      String id = path.substring("/api/runs/".length());
      Run run = runs.show(id).orElseThrow(() -> new NotFoundException("no run '" + Excerpts.escaped(id, 80) + "'"));
      ObjectNode out = summary(run);
      ArrayNode trail = out.putArray("records");
      for (Breadcrumb b : run.records()) {
        ObjectNode r = trail.addObject().put("id", b.id()).put("schema_name", String.valueOf(b.schemaName())).put("title", b.title())
            .put("created_by", String.valueOf(b.createdBy())).put("created_at", b.createdAt().toString());
        r.set("context", b.isSecret() ? RcrtJson.object() : b.context());
      }
      ArrayNode ignored = out.putArray("ignored_decisions");
      run.ignoredDecisions().forEach(ignored::add);
      return out;
    }
    if (path.equals("/api/tools")) {
      ArrayNode out = RcrtJson.array();
      for (ToolDefinition t : runner.discovery().discover().items()) {
        List<String> refused = new ArrayList<>(runner.problems(t));
        refused.removeAll(t.exampleProblems());
        ObjectNode tool = out.addObject().put("name", t.name()).put("type", t.implementation().type()).put("description", t.description())
            .put("runs_here", refused.isEmpty());
        if (!refused.isEmpty()) {
          tool.put("why_not", refused.get(0));
        }
      }
      return out;
    }
    if (path.equals("/api/search")) {
      return search(query);
    }
    throw new NotFoundException("no console API at " + Excerpts.escaped(path, 80));
  }

  private JsonNode runs(Map<String, String> query) {
    int limit = number(query, "limit", 50, 200);
    String status = query.get("status");
    List<Run> found;
    if (status == null || status.isEmpty()) {
      found = runs.list(limit);
    } else {
      Run.Status wanted = null;
      for (Run.Status s : Run.Status.values()) {
        if (s.wire().equals(status)) {
          wanted = s;
        }
      }
      if (wanted == null) {
        throw new ValidationException("status must be one of running, waiting_for_tools, waiting_for_approval, waiting_for_input, done,"
            + " failed, cancelled; found '" + Excerpts.escaped(status, 40) + "'");
      }
      found = runs.list(limit, wanted);
    }
    ArrayNode out = RcrtJson.array();
    found.forEach(r -> out.add(summary(r)));
    return out;
  }

  private static ObjectNode summary(Run run) {
    ObjectNode out = RcrtJson.object().put("id", run.id()).put("agent", run.agentId()).put("session", run.sessionId())
        .put("status", run.status().wire()).put("rounds", run.rounds()).put("updated_at", run.updatedAt().toString());
    if (run.answer() != null) {
      out.put("answer", run.answer().message());
    }
    ArrayNode pending = out.putArray("pending");
    for (Run.PendingCall call : run.pending()) {
      ObjectNode c = pending.addObject().put("call", call.requestId()).put("tool", call.tool());
      c.set("input", call.input());
      if (call.approval() != null) {
        c.put("approval_expires_at", call.approval().expiresAt().toString());
      }
      if (call.question() != null) {
        c.put("question", call.question().message());
      }
    }
    return out;
  }

  private JsonNode search(Map<String, String> query) {
    String text = query.getOrDefault("q", "");
    if (text.isBlank()) {
      throw new ValidationException("give q, the text to search for by meaning");
    }
    int nn = number(query, "nn", 5, 20);
    VectorSearch vectors = store.vectorSearch().orElseThrow(
        () -> new ValidationException("this store has no search by meaning (no embeddings); search by tag with ./rcrt search --selector"));
    boolean complete;
    try {
      complete = vectors.awaitIndexed(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      complete = false;
    }
    ObjectNode out = RcrtJson.object().put("complete", complete);
    if (!complete) {
      out.put("not_indexed", vectors.pending());
    }
    ArrayNode found = out.putArray("results");
    for (Breadcrumb b : vectors.nearest(text, nn, Selector.all())) {
      if (!b.isSecret()) {
        ObjectNode r = found.addObject().put("id", b.id()).put("title", b.title()).put("schema_name", String.valueOf(b.schemaName()));
        ArrayNode tags = r.putArray("tags");
        b.tags().forEach(tags::add);
      }
    }
    return out;
  }

  /**
   * Answers a {@code POST /api/runs/<id>/calls/<call>}: the approver's decision on the call.
   *
   * @throws Forbidden when {@code approver} is not one of the console's approvers
   */
  public JsonNode post(String path, JsonNode body) {
    String[] parts = path.split("/");
    // "", "api", "runs", id, "calls", call
    if (parts.length != 6 || !parts[1].equals("api") || !parts[2].equals("runs") || !parts[4].equals("calls")) {
      throw new NotFoundException("no console API at " + Excerpts.escaped(path, 80));
    }
    String decision = body.path("decision").asText("");
    if (!decision.equals("approve") && !decision.equals("deny")) {
      throw new ValidationException("decision must be \"approve\" or \"deny\"");
    }
    String approver = body.path("approver").asText("");
    if (!NAME.matcher(approver).matches() || !approvers.contains(approver.toLowerCase(Locale.ROOT))) {
      throw new Forbidden(approvers.isEmpty()
          ? "this console decides nothing: start it with the approvers who may decide (./rcrt console --approver NAME)"
          : "'" + Excerpts.escaped(approver, 64) + "' is not one of this console's approvers");
    }
    Principal by = Principal.ofWriter("user:" + approver.toLowerCase(Locale.ROOT));
    String reason = body.path("reason").isTextual() && !body.path("reason").asText().isBlank() ? body.path("reason").asText() : null;
    var recorded = decision.equals("approve") ? runs.approve(parts[3], parts[5], by, reason) : runs.deny(parts[3], parts[5], by, reason);
    return RcrtJson.object().put("call", recorded.requestId()).put("approved", recorded.approved()).put("by", by.toString());
  }

  private static int number(Map<String, String> query, String name, int fallback, int max) {
    String value = query.get(name);
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new ValidationException(name + " must be 1 to " + max + ", found '" + Excerpts.escaped(value, 20) + "'");
  }
}

package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.ContextView;
import dev.rcrt.core.HintException;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.LoadReport;
import dev.rcrt.core.RcrtException;
import dev.rcrt.core.SchemaDefinitions;
import dev.rcrt.core.ValidationException;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolDefinition;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "validate",
    description = {
      "Check breadcrumb files as RCRT would use them. Errors: a record that cannot be used (not JSON, not a",
      "breadcrumb, a malformed TTL, a tool or agent the runtime would refuse, a broken signature). Warnings: a",
      "record that is usable but inconsistent (an unknown schema, a context that breaks its schema definition,",
      "examples that break their tool's schemas, hints RCRT would ignore). One line per finding with file and",
      "pointer; exits 1 on errors, and with --strict on warnings too. npm and TypeScript manifests are skipped."
    })
public final class ValidateCommand implements Callable<Integer> {
  /** Schemas the SDK itself reads or writes. */
  static final Set<String> KNOWN =
      Set.of(
          "tool.v1", "tool.definition.v1", "tool.code.v1", "tool.config.v1", "tool.catalog.v1",
          "tool.request.v1", "tool.response.v1", "agent.def.v1", "agent.definition.v1",
          "user.message.v1", "agent.response.v1", ContextView.SCHEMA_DEFINITION);

  private final Cli cli;

  @Parameters(arity = "1..*", paramLabel = "PATH", converter = Converters.ExistingPath.class, description = "Breadcrumb JSON files or directories.")
  List<Path> paths = new ArrayList<>();

  @Option(names = "--strict", description = "Exit 1 on warnings too.")
  boolean strict;

  @Option(names = "--trusted-key", paramLabel = "PEM", converter = Converters.PublicKeyFile.class,
      description = "Also require every tool, config, agent and schema definition to be signed by one of these publisher"
          + " keys (./rcrt sign). Without it, signatures present are checked for integrity only. Repeatable.")
  List<PublicKey> trusted = new ArrayList<>();

  public ValidateCommand(Cli cli) {
    this.cli = cli;
  }

  private record Sourced(String source, BreadcrumbCreate create) {}

  /** What validation found, in order: lines {@code error: …} and {@code warning: …}. */
  private static final class Findings {
    final List<String> lines = new ArrayList<>();
    int errors;
    int warnings;

    void error(String source, String message) {
      lines.add("error: " + source + ": " + message);
      errors++;
    }

    void warning(String source, String message) {
      lines.add("warning: " + source + ": " + message);
      warnings++;
    }
  }

  @Override
  public Integer call() {
    Findings found = new Findings();
    BreadcrumbFiles.skipped(paths).forEach(p -> cli.note("skipped " + p + ": an npm or TypeScript manifest, not breadcrumbs"));
    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(paths);
    report.problems().forEach(p -> found.error(p.source(), p.message()));
    List<Sourced> all = new ArrayList<>();
    for (int i = 0; i < report.items().size(); i++) {
      all.add(new Sourced(report.sources().get(i), report.items().get(i)));
    }
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    Set<String> defined = new HashSet<>(KNOWN);
    List<Breadcrumb> stored = new ArrayList<>();
    for (Sourced s : all) {
      try {
        Breadcrumb b = BreadcrumbFiles.upsert(store, s.create());
        stored.add(b);
        if (ContextView.SCHEMA_DEFINITION.equals(b.schemaName())) {
          b.tags().stream().filter(t -> t.startsWith("defines:")).forEach(t -> defined.add(t.substring("defines:".length())));
        }
      } catch (RcrtException e) {
        found.error(s.source(), e.getMessage());
        stored.add(null);
      }
    }
    SchemaDefinitions definitions = SchemaDefinitions.of(store);
    ContextView views = ContextView.of(store);
    try (ToolRunner runner = ToolRunner.builder(store).build()) {
      for (int i = 0; i < all.size(); i++) {
        if (stored.get(i) != null) {
          check(all.get(i).source(), stored.get(i), defined, definitions, views, runner, found);
          signature(all.get(i).source(), stored.get(i), found);
        }
      }
    }
    found.lines.forEach(cli.out()::println);
    cli.note(all.size() + " breadcrumb(s) checked: " + found.errors + " error(s), " + found.warnings + " warning(s)");
    return found.errors > 0 || (strict && found.warnings > 0) ? 1 : 0;
  }

  private static void check(
      String source, Breadcrumb b, Set<String> defined, SchemaDefinitions definitions, ContextView views, ToolRunner runner,
      Findings found) {
    String schema = b.schemaName();
    if (schema == null) {
      found.warning(source, "/schema_name: missing; RCRT does not require one, but nothing can find this record by schema");
      return;
    }
    if (!defined.contains(schema)) {
      found.warning(source, "/schema_name: unknown schema '" + schema + "'; add a schema.def.v1 tagged defines:" + schema);
    }
    if (ContextView.SCHEMA_DEFINITION.equals(schema) && b.tags().stream().noneMatch(t -> t.startsWith("defines:"))) {
      b.tags().stream().filter(t -> t.startsWith("schema:") && !t.equals("schema:definition")).findFirst().ifPresent(t -> found.warning(source,
          "/tags: tagged " + t + " but not defines:" + t.substring("schema:".length())
              + "; definitions are found by their defines: tag, so this one applies to nothing"));
    }
    ContextFields.unknown(b).forEach(f -> found.warning(source, f));
    try {
      definitions.violations(schema, b.context()).forEach(v -> found.warning(source, "/context" + v + " (against its schema definition)"));
    } catch (ValidationException e) {
      found.warning(source, e.getMessage());
    }
    if (ToolDefinition.isToolSchema(schema)) {
      try {
        ToolDefinition tool = ToolDefinition.fromBreadcrumb(b);
        List<String> examples = tool.exampleProblems();
        runner.problems(tool).forEach(p -> {
          if (examples.contains(p)) {
            found.warning(source, p);
          } else {
            found.error(source, p);
          }
        });
      } catch (ValidationException e) {
        found.error(source, e.getMessage());
      }
    }
    if (AgentDefinition.SCHEMAS.contains(schema)) {
      agent(source, b, found);
    }
    JsonNode ownHints = b.llmHints();
    if (ownHints != null || ContextView.SCHEMA_DEFINITION.equals(schema)) {
      try {
        views.view(b);
      } catch (ValidationException | HintException e) {
        found.warning(source, e.getMessage() + " (RCRT ignores hints it cannot apply and shows the context as it is)");
      }
    }
  }

  /** An agent without {@code model} is usable: RCRT takes it from {@code llm_config_id}'s tool.config.v1, or the client's default. */
  private static void agent(String source, Breadcrumb b, Findings found) {
    AgentDefinition agent;
    try {
      agent = AgentDefinition.fromBreadcrumb(b);
    } catch (ValidationException e) {
      if (b.contextText("model") != null || b.context().path("llm_config").isObject()) {
        found.error(source, e.getMessage());
      }
      return;
    }
    if (agent.model() == null && b.contextText("llm_config_id") == null) {
      found.warning(source, "agent definition has no context/model and no context/llm_config_id (nor an llm_config.model): the client's default model answers");
    }
  }

  /** A signature present must be intact; with trusted keys, every protected record must carry a trusted one. */
  private void signature(String source, Breadcrumb b, Findings found) {
    boolean signed = b.context().has(RecordSignatures.FIELD);
    boolean protectedRecord = b.schemaName() != null && ToolTrustPolicy.PROTECTED_SCHEMAS.contains(b.schemaName());
    if (signed || (protectedRecord && !trusted.isEmpty())) {
      String problem = RecordSignatures.problem(b.schemaName(), b.context(), trusted.isEmpty() ? null : trusted);
      if (problem != null) {
        found.error(source, "/context/signature: " + problem);
      }
    }
  }
}

package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.agent.AgentDefinition;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbFiles;
import dev.rcrt.core.ContextView;
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
      "Check breadcrumb files: JSON, known schemas (the SDK's, or one a schema.def.v1 in the files",
      "defines), tool definitions and their examples against their schemas, agent definitions,",
      "llm_hints, and records against their schema definitions. Prints one line per problem with",
      "file and pointer; exits 1 if there is any."
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

  @Option(names = "--trusted-key", paramLabel = "PEM", converter = Converters.PublicKeyFile.class,
      description = "Also require every tool, config, agent and schema definition to be signed by one of these publisher"
          + " keys (./rcrt sign). Without it, signatures present are checked for integrity only. Repeatable.")
  List<PublicKey> trusted = new ArrayList<>();

  public ValidateCommand(Cli cli) {
    this.cli = cli;
  }

  private record Sourced(String source, BreadcrumbCreate create) {}

  @Override
  public Integer call() {
    List<String> problems = new ArrayList<>();
    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(paths);
    report.problems().forEach(p -> problems.add(p.toString()));
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
        problems.add(s.source() + ": " + e.getMessage());
        stored.add(null);
      }
    }
    SchemaDefinitions definitions = SchemaDefinitions.of(store);
    ContextView views = ContextView.of(store);
    try (ToolRunner runner = ToolRunner.builder(store).build()) {
      for (int i = 0; i < all.size(); i++) {
        if (stored.get(i) != null) {
          check(all.get(i).source(), stored.get(i), defined, definitions, views, runner, problems);
          signature(all.get(i).source(), stored.get(i), problems);
        }
      }
    }
    problems.forEach(cli.out()::println);
    cli.note(all.size() + " breadcrumb(s) checked, " + problems.size() + " problem(s)");
    return problems.isEmpty() ? 0 : 1;
  }

  private static void check(
      String source, Breadcrumb b, Set<String> defined, SchemaDefinitions definitions, ContextView views, ToolRunner runner,
      List<String> problems) {
    String schema = b.schemaName();
    if (schema == null) {
      problems.add(source + ": /schema_name: missing; every breadcrumb needs a schema");
      return;
    }
    if (!defined.contains(schema)) {
      problems.add(source + ": /schema_name: unknown schema '" + schema + "'; add a schema.def.v1 tagged defines:" + schema);
    }
    attempt(source, problems, () -> definitions.violations(schema, b.context()).forEach(v -> problems.add(source + ": /context" + v)));
    if (ToolDefinition.isToolSchema(schema)) {
      attempt(source, problems, () -> runner.problems(ToolDefinition.fromBreadcrumb(b)).forEach(p -> problems.add(source + ": " + p)));
    }
    if (AgentDefinition.SCHEMAS.contains(schema)) {
      attempt(source, problems, () -> AgentDefinition.fromBreadcrumb(b));
    }
    JsonNode ownHints = b.llmHints();
    if (ownHints != null || ContextView.SCHEMA_DEFINITION.equals(schema)) {
      attempt(source, problems, () -> views.view(b));
    }
  }

  /** A signature present must be intact; with trusted keys, every protected record must carry a trusted one. */
  private void signature(String source, Breadcrumb b, List<String> problems) {
    boolean signed = b.context().has(RecordSignatures.FIELD);
    boolean protectedRecord = b.schemaName() != null && ToolTrustPolicy.PROTECTED_SCHEMAS.contains(b.schemaName());
    if (signed || (protectedRecord && !trusted.isEmpty())) {
      String problem = RecordSignatures.problem(b.schemaName(), b.context(), trusted.isEmpty() ? null : trusted);
      if (problem != null) {
        problems.add(source + ": /context/signature: " + problem);
      }
    }
  }

  private static void attempt(String source, List<String> problems, Runnable check) {
    try {
      check.run();
    } catch (ValidationException | dev.rcrt.core.HintException e) {
      problems.add(source + ": " + e.getMessage());
    }
  }
}

package dev.rcrt.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.rcrt.core.internal.Mapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Reads breadcrumbs from JSON in RCRT's bootstrap-breadcrumbs format: a file holds one object or an
 * array of objects, each {@code {schema_name, title, tags, context, llm_hints?, description?,
 * semantic_version?, id?}} (see {@link BreadcrumbCreate}). A directory is read recursively, every
 * {@code *.json} file in path order except npm and TypeScript manifests ({@link #skipped}).
 *
 * <p>An element without an {@code id} gets a name-based UUID derived from the record itself: its
 * {@code schema_name}, {@code title} and tags (and, for the second and later records of one
 * document with the same three, their count). So the same record loads to the same id whatever
 * path it is read by (relative, absolute, moved): a second load replaces rather than duplicates,
 * and ids printed by one run name the same records in the next. Editing its context keeps the
 * id; changing its title or tags gives a new one.
 *
 * <p>A malformed file or element is reported as a {@link LoadProblem} with its path and the JSON
 * error, and everything else still loads. A second element with an id already seen in the same
 * load is reported and skipped. Stateless and thread-safe.
 */
public final class BreadcrumbFiles {
  private BreadcrumbFiles() {}

  /**
   * Reads every breadcrumb in the given files and directories without storing them.
   *
   * @param paths files or directories; a missing path is reported as a problem
   */
  public static LoadReport<BreadcrumbCreate> read(List<Path> paths) {
    List<BreadcrumbCreate> items = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    List<LoadProblem> problems = new ArrayList<>();
    Map<String, String> seenIds = new HashMap<>();
    for (Path path : paths) {
      for (Path file : jsonFiles(path, problems)) {
        try (InputStream in = Files.newInputStream(file)) {
          LoadReport<BreadcrumbCreate> one = parse(file.toString(), in);
          problems.addAll(one.problems());
          for (int i = 0; i < one.items().size(); i++) {
            BreadcrumbCreate create = one.items().get(i);
            String earlier = create.id() == null ? null : seenIds.putIfAbsent(create.id(), file.toString());
            if (earlier != null) {
              problems.add(
                  new LoadProblem(
                      file.toString(),
                      "duplicate id '" + create.id() + "' (first loaded from " + earlier
                          + "); this one is skipped"));
            } else {
              items.add(create);
              sources.add(one.sources().get(i));
            }
          }
        } catch (IOException e) {
          problems.add(new LoadProblem(file.toString(), "cannot read: " + e.getMessage()));
        }
      }
    }
    return new LoadReport<>(items, problems, sources);
  }

  /**
   * Reads breadcrumbs and writes them to {@code store}. A payload whose id already exists replaces
   * the stored record (an update at its current version), so loading the same files twice leaves
   * one copy of each.
   *
   * @return the stored records, and every problem (including store refusals)
   */
  public static LoadReport<Breadcrumb> loadInto(BreadcrumbStore store, List<Path> paths) {
    LoadReport<BreadcrumbCreate> read = read(paths);
    List<Breadcrumb> stored = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    List<LoadProblem> problems = new ArrayList<>(read.problems());
    for (int i = 0; i < read.items().size(); i++) {
      try {
        stored.add(upsert(store, read.items().get(i)));
        sources.add(read.sources().get(i));
      } catch (RcrtException e) {
        problems.add(new LoadProblem(read.sources().get(i), e.getMessage()));
      }
    }
    return new LoadReport<>(stored, problems, sources);
  }

  /**
   * Creates {@code create}, or, when its id already exists, replaces that record's fields; a record
   * that already has exactly these fields is left alone (no new version), so loading the same files
   * into a persistent store again writes nothing.
   *
   * @throws ConflictException if another writer updates the same id at the same moment
   */
  public static Breadcrumb upsert(BreadcrumbStore store, BreadcrumbCreate create) {
    if (create.id() != null) {
      var existing = store.get(create.id());
      if (existing.isPresent()) {
        Breadcrumb b = existing.get();
        if (same(b, create)) {
          return b;
        }
        return store.update(create.id(), b.version(), BreadcrumbUpdate.replacing(create));
      }
    }
    return store.create(create);
  }

  private static boolean same(Breadcrumb b, BreadcrumbCreate c) {
    return b.title().equals(c.title()) && java.util.Objects.equals(b.description(), c.description())
        && java.util.Objects.equals(b.semanticVersion(), c.semanticVersion()) && b.context().equals(c.context())
        && b.tags().equals(c.tags()) && java.util.Objects.equals(b.schemaName(), c.schemaName())
        && java.util.Objects.equals(b.llmHints(), c.llmHints()) && b.visibility() == c.visibilityOrDefault()
        && b.sensitivity() == c.sensitivityOrDefault() && java.util.Objects.equals(b.updatedBy(), c.createdBy());
  }

  /**
   * Parses one JSON document (an object or an array of objects) from a stream.
   *
   * @param source the name used in problems, such as a path or a classpath resource
   * @return the breadcrumbs, and a problem for the whole document or for each bad element
   */
  public static LoadReport<BreadcrumbCreate> parse(String source, InputStream json) {
    JsonNode root;
    try {
      root = Mapper.SHARED.readTree(json);
      if (root != null) {
        RcrtJson.checkFinite(root);
      }
    } catch (ValidationException e) {
      return problem(source, e.getMessage());
    } catch (JsonProcessingException e) {
      return problem(source, "not valid JSON: " + e.getOriginalMessage() + RcrtJson.location(e));
    } catch (IOException e) {
      return problem(source, "cannot read: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      return problem(source, "empty file; expected a breadcrumb object or an array of them");
    }
    List<BreadcrumbCreate> items = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    List<LoadProblem> problems = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    if (root.isArray()) {
      for (int i = 0; i < root.size(); i++) {
        element(source + "[" + i + "]", root.get(i), items, sources, problems, seen);
      }
    } else {
      element(source, root, items, sources, problems, seen);
    }
    return new LoadReport<>(items, problems, sources);
  }

  private static void element(
      String source, JsonNode node, List<BreadcrumbCreate> items, List<String> sources, List<LoadProblem> problems,
      Map<String, Integer> seen) {
    if (!node.isObject()) {
      problems.add(new LoadProblem(source, "expected a breadcrumb object, found " + node.getNodeType()));
      return;
    }
    try {
      BreadcrumbCreate create = Mapper.SHARED.treeToValue(node, BreadcrumbCreate.class);
      items.add(create.id() != null ? create : create.withId(derivedId(create, seen)));
      sources.add(source);
    } catch (ValueInstantiationException e) {
      String why = e.getCause() instanceof RcrtException r ? r.getMessage() : e.getOriginalMessage();
      problems.add(new LoadProblem(source, why));
    } catch (JsonProcessingException e) {
      String why = e.getCause() instanceof RcrtException r ? r.getMessage() : e.getOriginalMessage();
      problems.add(new LoadProblem(source, why + pathOf(e)));
    }
  }

  /**
   * The id of a file element that names none: a UUID derived from its schema, title and sorted
   * tags, plus its count among the same in this document after the first.
   */
  private static String derivedId(BreadcrumbCreate create, Map<String, Integer> seen) {
    String identity = create.schemaName() + "\n" + create.title() + "\n" + String.join("\n", new TreeSet<>(create.tags()));
    int occurrence = seen.merge(identity, 1, Integer::sum);
    String name = "rcrt-record:" + identity + (occurrence > 1 ? "\n#" + occurrence : "");
    return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static String pathOf(JsonProcessingException e) {
    if (e instanceof com.fasterxml.jackson.databind.JsonMappingException m && !m.getPath().isEmpty()) {
      StringBuilder pointer = new StringBuilder();
      for (var ref : m.getPath()) {
        pointer.append('/').append(ref.getFieldName() != null ? ref.getFieldName() : ref.getIndex());
      }
      return " (at " + pointer + ")";
    }
    return "";
  }

  private static List<Path> jsonFiles(Path path, List<LoadProblem> problems) {
    if (!Files.exists(path)) {
      problems.add(new LoadProblem(path.toString(), "no such file or directory"));
      return List.of();
    }
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> walk = Files.walk(path)) {
      return walk.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".json") && !isTooling(p))
          .sorted()
          .toList();
    } catch (IOException e) {
      problems.add(new LoadProblem(path.toString(), "cannot list directory: " + e.getMessage()));
      return List.of();
    }
  }

  /** Files in a directory that are not breadcrumbs (npm and TypeScript manifests, anything under {@code node_modules}). */
  private static final Set<String> TOOLING = Set.of("package.json", "package-lock.json", "tsconfig.json", "jsconfig.json");

  private static boolean isTooling(Path file) {
    String name = file.getFileName().toString();
    return TOOLING.contains(name) || StreamSupport.stream(file.spliterator(), false).anyMatch(p -> p.toString().equals("node_modules"));
  }

  /**
   * The JSON files under {@code paths}' directories that {@link #read} leaves out because they are
   * not breadcrumbs: {@code package.json}, {@code package-lock.json}, {@code tsconfig.json},
   * {@code jsconfig.json} and anything under {@code node_modules} (RCRT keeps its tools' npm
   * manifests beside their breadcrumbs). A file named directly is always read.
   */
  public static List<Path> skipped(List<Path> paths) {
    List<Path> out = new ArrayList<>();
    for (Path path : paths) {
      if (Files.isDirectory(path)) {
        try (Stream<Path> walk = Files.walk(path)) {
          walk.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".json") && isTooling(p)).sorted().forEach(out::add);
        } catch (IOException e) {
          // read reports the directory
        }
      }
    }
    return out;
  }

  private static LoadReport<BreadcrumbCreate> problem(String source, String message) {
    return new LoadReport<>(List.of(), List.of(new LoadProblem(source, message)));
  }
}

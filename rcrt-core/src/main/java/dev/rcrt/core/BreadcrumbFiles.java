package dev.rcrt.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads breadcrumbs from JSON in RCRT's bootstrap-breadcrumbs format: a file holds one object or an
 * array of objects, each {@code {schema_name, title, tags, context, llm_hints?, description?,
 * semantic_version?, id?}} (see {@link BreadcrumbCreate}). A directory is read recursively, every
 * {@code *.json} file in path order.
 *
 * <p>An element without an {@code id} gets a name-based UUID derived from its source (the path, and
 * the index in an array), so the same file always loads to the same ids: a second load replaces
 * rather than duplicates, and ids printed by one run name the same records in the next.
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
   * Creates {@code create}, or, when its id already exists, replaces that record's fields.
   *
   * @throws ConflictException if another writer updates the same id at the same moment
   */
  public static Breadcrumb upsert(BreadcrumbStore store, BreadcrumbCreate create) {
    if (create.id() != null) {
      var existing = store.get(create.id());
      if (existing.isPresent()) {
        return store.update(
            create.id(), existing.get().version(), BreadcrumbUpdate.replacing(create));
      }
    }
    return store.create(create);
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
      root = RcrtJson.mapper().readTree(json);
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
    if (root.isArray()) {
      for (int i = 0; i < root.size(); i++) {
        element(source + "[" + i + "]", root.get(i), items, sources, problems);
      }
    } else {
      element(source, root, items, sources, problems);
    }
    return new LoadReport<>(items, problems, sources);
  }

  private static void element(
      String source, JsonNode node, List<BreadcrumbCreate> items, List<String> sources, List<LoadProblem> problems) {
    if (!node.isObject()) {
      problems.add(new LoadProblem(source, "expected a breadcrumb object, found " + node.getNodeType()));
      return;
    }
    try {
      BreadcrumbCreate create = RcrtJson.mapper().treeToValue(node, BreadcrumbCreate.class);
      items.add(create.id() != null ? create : create.withId(stableId(source)));
      sources.add(source);
    } catch (ValueInstantiationException e) {
      String why = e.getCause() instanceof RcrtException r ? r.getMessage() : e.getOriginalMessage();
      problems.add(new LoadProblem(source, why));
    } catch (JsonProcessingException e) {
      String why = e.getCause() instanceof RcrtException r ? r.getMessage() : e.getOriginalMessage();
      problems.add(new LoadProblem(source, why + pathOf(e)));
    }
  }

  /** The id of a file element that names none: a UUID derived from {@code source}. */
  static String stableId(String source) {
    return java.util.UUID.nameUUIDFromBytes(("rcrt-file:" + source).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
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
      return walk.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".json"))
          .sorted()
          .toList();
    } catch (IOException e) {
      problems.add(new LoadProblem(path.toString(), "cannot list directory: " + e.getMessage()));
      return List.of();
    }
  }

  private static LoadReport<BreadcrumbCreate> problem(String source, String message) {
    return new LoadReport<>(List.of(), List.of(new LoadProblem(source, message)));
  }
}

package dev.rcrt.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A labelled set for measuring search by meaning: 55 topics, each a tool (name, description) and a
 * question that needs it while sharing few words with its description ("How many yen is 20
 * euros?" for "Convert an amount of money between currencies at today's exchange rate"), and as
 * many generated distractors as asked for (office and admin actions on records, none about a
 * topic's subject). Tool-selection and retrieval tests rank the right record among them and report
 * recall.
 */
public final class MeaningSet {
  private static final List<Topic> TOPICS = load();

  private static final String[] VERBS = {
    "Archive", "Export", "Import", "Rename", "Duplicate", "Label", "Lock", "Unlock", "Reject", "Assign", "Unassign", "Merge",
    "Split", "Restore", "Purge", "Sort", "Filter", "Count", "Share", "Publish", "Unpublish", "Flag", "Pin", "Unpin", "Star",
    "Mute", "Watch", "Snooze", "Move", "Review"
  };
  private static final String[] OBJECTS = {
    "support ticket", "kanban card", "wiki page", "design file", "spreadsheet row", "slide deck", "customer record",
    "purchase order", "warehouse bin", "employee profile", "training course", "survey response", "feature flag", "log stream",
    "container image", "test case", "bug report", "chat channel", "forum thread", "photo album", "video clip", "contract template",
    "vendor account", "asset tag", "meeting note", "project milestone", "user group", "access role", "backup snapshot",
    "onboarding checklist", "brand guideline", "release note"
  };
  private static final String[] PLACES = {"team", "project", "shared", "department", "company"};

  private MeaningSet() {}

  /**
   * One labelled topic.
   *
   * @param tool a tool name, snake case
   * @param description what the tool does
   * @param question what a user asks that this tool answers; empty for a distractor
   */
  public record Topic(String tool, String description, String question) {}

  /** The 55 labelled topics, in file order. */
  public static List<Topic> topics() {
    return TOPICS;
  }

  /** {@code count} generated distractor tools (at most 960), each with a distinct name; their questions are empty. */
  public static List<Topic> distractors(int count) {
    if (count > VERBS.length * OBJECTS.length) {
      throw new IllegalArgumentException("at most " + VERBS.length * OBJECTS.length + " distractors");
    }
    List<Topic> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String verb = VERBS[i % VERBS.length];
      String object = OBJECTS[(i / VERBS.length) % OBJECTS.length];
      String place = PLACES[i % PLACES.length];
      out.add(new Topic(
          (verb + "_" + object).toLowerCase(java.util.Locale.ROOT).replace(' ', '_'),
          verb + " a " + object + " in the " + place + " workspace",
          ""));
    }
    return out;
  }

  private static List<Topic> load() {
    try (InputStream in = Objects.requireNonNull(MeaningSet.class.getResourceAsStream("meaning-set.tsv"), "meaning-set.tsv");
        BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      List<Topic> out = new ArrayList<>();
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        out.add(new Topic(f[0], f[1], f[2]));
      }
      return List.copyOf(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

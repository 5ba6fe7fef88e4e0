package dev.rcrt.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of the README and of {@code docs/} is code the build compiles, shown with its
 * imports: either a whole source file of the repository, or a region of one between {@code // docs:begin
 * NAME} and {@code // docs:end NAME}, preceded by the file's imports that the region names. Every
 * region is shown somewhere, so none goes stale unseen.
 */
class DocsSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern REGION = Pattern.compile("// docs:begin (\\S+)\\n(.*?)\\n\\s*// docs:end \\1", Pattern.DOTALL);
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void everyJavaBlockInTheDocsIsCompiledCodeWithItsImportsAndEveryRegionIsShown() throws IOException {
    Map<String, String> regions = new LinkedHashMap<>();
    Set<String> wholeFiles = new HashSet<>();
    for (Path source : javaSources()) {
      String text = Files.readString(source);
      wholeFiles.add(text.stripTrailing());
      List<String> imports = text.lines().filter(l -> l.startsWith("import ")).toList();
      Matcher m = REGION.matcher(text);
      while (m.find()) {
        String region = ExamplesTest.dedent(m.group(2));
        List<String> named = new ArrayList<>();
        for (String line : imports) {
          String[] parts = line.replace(";", "").split("\\.");
          if (Pattern.compile("\\b" + Pattern.quote(parts[parts.length - 1]) + "\\b").matcher(region).find()) {
            named.add(line);
          }
        }
        String shown = named.isEmpty() ? region : String.join("\n", named) + "\n\n" + region;
        assertThat(regions.put(m.group(1), shown)).as("region name %s used twice", m.group(1)).isNull();
      }
    }
    assertThat(regions).isNotEmpty();

    Set<String> shownRegions = new HashSet<>();
    int blocks = 0;
    for (Path doc : docs()) {
      Matcher m = JAVA_BLOCK.matcher(Files.readString(doc));
      while (m.find()) {
        blocks++;
        String block = m.group(1).stripTrailing();
        String region = regions.entrySet().stream().filter(e -> e.getValue().equals(block)).map(Map.Entry::getKey).findFirst().orElse(null);
        assertThat(region != null || wholeFiles.contains(block))
            .as("%s shows a Java block that is neither a compiled file nor a docs region with its imports:%n%s", ROOT.relativize(doc), block)
            .isTrue();
        assertThat(block).as("%s: a block shows its imports", ROOT.relativize(doc)).contains("import ");
        if (region != null) {
          shownRegions.add(region);
        }
      }
    }
    assertThat(blocks).isGreaterThan(15);
    assertThat(shownRegions).as("every docs region appears in the docs").containsExactlyInAnyOrderElementsOf(regions.keySet());
  }

  @Test
  void everyWholeXmlFileInTheDocsIsAFileOfTheBuild() throws IOException {
    Set<String> poms = new HashSet<>();
    try (Stream<Path> all = Files.walk(ROOT)) {
      for (Path p : all.filter(p -> p.getFileName().toString().equals("pom.xml") && !p.toString().contains("/target/")).toList()) {
        poms.add(Files.readString(p).stripTrailing());
      }
    }
    int checked = 0;
    for (Path doc : docs()) {
      Matcher m = Pattern.compile("```xml\\n(<\\?xml.*?)```", Pattern.DOTALL).matcher(Files.readString(doc));
      while (m.find()) {
        checked++;
        assertThat(poms).as("%s shows a pom.xml that the build does not build", ROOT.relativize(doc)).contains(m.group(1).stripTrailing());
      }
    }
    assertThat(checked).isPositive();
  }

  @Test
  void everyRelativeLinkInTheDocsLeadsToAFileAndAHeadingThatExist() throws IOException {
    List<Path> pages = new ArrayList<>(docs());
    for (String top : List.of("CHANGELOG.md", "SECURITY.md", "CONTRIBUTING.md")) {
      pages.add(ROOT.resolve(top));
    }
    Pattern link = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    List<String> broken = new ArrayList<>();
    int links = 0;
    for (Path page : pages) {
      String text = withoutCode(Files.readString(page));
      Matcher m = link.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue; // https:, mailto:
        }
        links++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
        } else if (hash >= 0 && resolved.toString().endsWith(".md")
            && !anchors(Files.readString(resolved)).contains(target.substring(hash + 1))) {
          broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(links).isGreaterThan(30);
    assertThat(broken).isEmpty();
  }

  /** The text outside fenced code blocks. */
  private static String withoutCode(String markdown) {
    return markdown.replaceAll("(?s)```.*?```", "");
  }

  /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
  private static Set<String> anchors(String markdown) {
    Set<String> anchors = new HashSet<>();
    for (String line : withoutCode(markdown).lines().toList()) {
      if (line.matches("^#{1,6} .*")) {
        anchors.add(line.replaceFirst("^#+ ", "").strip().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
      }
    }
    return anchors;
  }

  private static List<Path> javaSources() throws IOException {
    try (Stream<Path> all = Files.walk(ROOT)) {
      return all.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/node_modules/") && !p.toString().contains("/.git/"))
          .sorted().toList();
    }
  }

  private static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> all = Files.walk(ROOT.resolve("docs"))) {
      all.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }
}

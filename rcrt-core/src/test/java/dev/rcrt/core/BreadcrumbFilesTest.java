package dev.rcrt.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BreadcrumbFilesTest {
  @TempDir Path dir;

  private Path write(String name, String json) throws Exception {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
    return file;
  }

  @Test
  void readsOneObjectOrAnArrayFromEveryJsonFileInADirectoryRecursively() throws Exception {
    write("a.json", "{\"schema_name\":\"s.v1\",\"title\":\"A\",\"tags\":[\"x\"],\"context\":{\"n\":1}}");
    write("nested/deeper/b.json", "[{\"schema_name\":\"s.v1\",\"title\":\"B1\"},{\"schema_name\":\"s.v1\",\"title\":\"B2\",\"id\":\"b2\"}]");
    write("nested/readme.txt", "not json, not read");

    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(List.of(dir));

    assertThat(report.problems()).isEmpty();
    assertThat(report.items()).extracting(BreadcrumbCreate::title).containsExactly("A", "B1", "B2");
    assertThat(report.items().get(0).context().get("n").asInt()).isEqualTo(1);
    assertThat(report.items().get(2).id()).isEqualTo("b2");
    assertThat(report.sources()).containsExactly(
        dir.resolve("a.json").toString(), dir.resolve("nested/deeper/b.json") + "[0]", dir.resolve("nested/deeper/b.json") + "[1]");
  }

  @Test
  void aMalformedFileIsReportedWithItsPathAndTheOthersStillLoad() throws Exception {
    Path bad = write("bad.json", "{\"title\": \"broken\",\n \"context\": {");
    write("good.json", "{\"schema_name\":\"s.v1\",\"title\":\"Good\"}");

    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(List.of(dir));

    assertThat(report.items()).extracting(BreadcrumbCreate::title).containsExactly("Good");
    assertThat(report.problems()).hasSize(1);
    assertThat(report.problems().get(0).source()).isEqualTo(bad.toString());
    assertThat(report.problems().get(0).message()).startsWith("not valid JSON").contains("line 2");
  }

  @Test
  void aBadElementOfAnArrayIsReportedByIndex() throws Exception {
    Path f = write("mixed.json", "[{\"title\":\"ok\"},{\"context\":{}},5,{\"title\":\"t\",\"tags\":{\"no\":1}}]");
    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(List.of(f));
    assertThat(report.items()).extracting(BreadcrumbCreate::title).containsExactly("ok");
    assertThat(report.problems())
        .extracting(LoadProblem::toString)
        .containsExactly(
            f + "[1]: breadcrumb title is required",
            f + "[2]: expected a breadcrumb object, found NUMBER",
            f + "[3]: " + report.problems().get(2).message());
    assertThat(report.problems().get(2).message()).contains("/tags");
  }

  @Test
  void aDuplicateIdIsReportedAndSkipped() throws Exception {
    write("1.json", "{\"id\":\"same\",\"title\":\"first\"}");
    write("2.json", "{\"id\":\"same\",\"title\":\"second\"}");
    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(List.of(dir));
    assertThat(report.items()).extracting(BreadcrumbCreate::title).containsExactly("first");
    assertThat(report.problems().get(0).message()).contains("duplicate id 'same'");
  }

  @Test
  void elementsWithoutAnIdGetTheSameIdEveryTimeTheFileIsLoaded() throws Exception {
    Path f = write("notes.json", "[{\"title\":\"a\"},{\"title\":\"b\"}]");
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    LoadReport<Breadcrumb> first = BreadcrumbFiles.loadInto(store, List.of(f));
    LoadReport<Breadcrumb> second = BreadcrumbFiles.loadInto(store, List.of(f));
    assertThat(first.items()).extracting(Breadcrumb::id).doesNotHaveDuplicates();
    assertThat(second.items()).extracting(Breadcrumb::id).isEqualTo(first.items().stream().map(Breadcrumb::id).toList());
    assertThat(store.size()).isEqualTo(2);
    assertThat(java.util.UUID.fromString(first.items().get(0).id())).isNotNull();
  }

  @Test
  void derivedIdsComeFromTheRecordSoARelativeAndAnAbsolutePathOrAMovedFileGiveTheSameIds() throws Exception {
    String json = "[{\"title\":\"a\",\"tags\":[\"x\",\"y\"]},{\"title\":\"a\",\"tags\":[\"y\",\"x\"]},{\"title\":\"b\"}]";
    Path f = write("notes.json", json);
    Path moved = write("elsewhere/renamed.json", json);
    Path relative = Path.of("").toAbsolutePath().relativize(f);

    List<String> absoluteIds = ids(BreadcrumbFiles.read(List.of(f.toAbsolutePath())));
    List<String> relativeIds = ids(BreadcrumbFiles.read(List.of(relative)));
    List<String> movedIds = ids(BreadcrumbFiles.read(List.of(moved)));

    assertThat(relativeIds).isEqualTo(absoluteIds).isEqualTo(movedIds).doesNotHaveDuplicates().hasSize(3);
    write("notes.json", json.replace("\"title\":\"b\"}", "\"title\":\"b\",\"context\":{\"edited\":true}}"));
    assertThat(ids(BreadcrumbFiles.read(List.of(f)))).as("editing the context keeps the id").isEqualTo(absoluteIds);
  }

  private static List<String> ids(LoadReport<BreadcrumbCreate> report) {
    assertThat(report.problems()).isEmpty();
    return report.items().stream().map(BreadcrumbCreate::id).toList();
  }

  @Test
  void aMissingPathIsAProblemNotAnException() {
    LoadReport<BreadcrumbCreate> report = BreadcrumbFiles.read(List.of(dir.resolve("nope")));
    assertThat(report.problems().get(0).message()).isEqualTo("no such file or directory");
  }

  @Test
  void loadingTheSameFilesTwiceReplacesRecordsWithIdsInsteadOfDuplicating() throws Exception {
    Path f = write("t.json", "{\"id\":\"tool-def-x\",\"schema_name\":\"s.v1\",\"title\":\"X\",\"context\":{\"v\":1}}");
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    BreadcrumbFiles.loadInto(store, List.of(f));
    Files.writeString(f, "{\"id\":\"tool-def-x\",\"schema_name\":\"s.v1\",\"title\":\"X\",\"context\":{\"v\":2}}");
    LoadReport<Breadcrumb> second = BreadcrumbFiles.loadInto(store, List.of(f));

    assertThat(store.size()).isEqualTo(1);
    assertThat(second.items().get(0).version()).isEqualTo(2);
    assertThat(store.get("tool-def-x").orElseThrow().context().get("v").asInt()).isEqualTo(2);
  }
}

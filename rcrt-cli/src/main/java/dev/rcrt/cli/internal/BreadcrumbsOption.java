package dev.rcrt.cli.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The repeatable {@code --breadcrumbs PATH} option shared by the commands. */
public final class BreadcrumbsOption {
  @Option(
      names = "--breadcrumbs",
      converter = Converters.ExistingPath.class,
      paramLabel = "PATH",
      description = "Breadcrumb JSON file or directory (read recursively) to load on top of the bundled tools and agent. Repeatable.")
  List<Path> paths = new ArrayList<>();

  public List<Path> paths() {
    return paths;
  }
}

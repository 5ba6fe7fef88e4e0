package dev.rcrt.cli.internal;

import picocli.CommandLine.Command;

@Command(name = "tool", description = "Run one tool, as tool authors do to try their tool.")
public final class ToolCommand extends GroupCommand {}

package dev.rcrt.cli.internal;

import picocli.CommandLine.Command;

@Command(name = "a2a", description = "Agent2Agent (A2A 0.3.0): serve the stored agents to A2A clients, and talk to A2A agents or import them as tools.")
public final class A2aCommand extends GroupCommand {}

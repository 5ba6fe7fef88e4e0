package dev.rcrt.mcp;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRunner;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;

/**
 * A stdio MCP server, run as a child process by {@link McpEnvironmentTest}, with a tool {@code
 * environment} that answers with the environment its process was started with, and a tool {@code
 * halt} that ends the process in the middle of its call.
 */
public final class EnvironmentDumpServer {
  private EnvironmentDumpServer() {}

  public static void main(String[] args) throws Exception {
    InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();
    store.create(BreadcrumbCreate.builder("tool.v1", "environment")
        .context(RcrtJson.parse("{\"name\":\"environment\",\"description\":\"this process's environment\",\"implementation\":{\"type\":\"builtin\"}}"))
        .build());
    store.create(BreadcrumbCreate.builder("tool.v1", "halt")
        .context(RcrtJson.parse("{\"name\":\"halt\",\"description\":\"ends this process mid-call\",\"implementation\":{\"type\":\"builtin\"}}"))
        .build());
    try (ToolRunner runner = ToolRunner.builder(store)
            .handler("environment", (in, ctx) ->
                RcrtJson.object().put("pid", ProcessHandle.current().pid()).set("env", RcrtJson.toTree(System.getenv())))
            .handler("halt", (in, ctx) -> {
              System.err.println("halting as asked");
              System.err.flush();
              Runtime.getRuntime().halt(7);
              return in;
            })
            .build();
        McpToolServer server = McpToolServer.builder(runner).stdio(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out))) {
      server.awaitClose();
    }
  }
}

package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.ToolRunner;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A Java tool's output as MCP content blocks: the mapping every runtime's output goes through. */
class McpContentTest {
  private static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
  private InMemoryBreadcrumbStore store;
  private ToolRunner runner;
  private McpToolServer server;
  private McpSyncClient client;

  @BeforeEach
  void start() {
    store = new InMemoryBreadcrumbStore();
    for (String name : new String[] {"chart", "odd"}) {
      store.create(BreadcrumbCreate.builder("tool.definition.v1", name).context(RcrtJson.parse("{\"name\":\"" + name + "\"}")).build());
    }
    runner = ToolRunner.builder(store)
        .handler("chart", (in, ctx) -> RcrtJson.parse("""
            {"content":[{"type":"text","text":"Sales by month:"},{"type":"image","data":"%s","mime_type":"image/png"},
             {"type":"resource_link","uri":"rcrt://breadcrumbs/sales","name":"sales"}],"total":42}""".formatted(PNG)))
        .handler("odd", (in, ctx) -> RcrtJson.parse("{\"content\":[{\"type\":\"hologram\",\"data\":\"x\"}]}"))
        .build();
    server = McpToolServer.builder(runner).http("127.0.0.1", 0, null);
    client = TestClients.connect(server, "content-client", spec -> spec);
  }

  @AfterEach
  void stop() {
    client.closeGracefully();
    server.close();
    runner.close();
  }

  @Test
  void contentBlocksAreSentInOrderWithTheOutputAsStructuredContent() {
    McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("chart", Map.of()));
    assertThat(r.isError()).isFalse();
    assertThat(r.content()).hasSize(3);
    assertThat(((McpSchema.TextContent) r.content().get(0)).text()).isEqualTo("Sales by month:");
    McpSchema.ImageContent image = (McpSchema.ImageContent) r.content().get(1);
    assertThat(image.data()).isEqualTo(PNG);
    assertThat(image.mimeType()).isEqualTo("image/png");
    assertThat(((McpSchema.ResourceLink) r.content().get(2)).uri()).isEqualTo("rcrt://breadcrumbs/sales");
    assertThat(r.structuredContent()).isInstanceOf(Map.class);
    assertThat(((Map<?, ?>) r.structuredContent()).get("total")).isEqualTo(42);
  }

  @Test
  void anOutputWithABlockOfNoKnownShapeIsSentAsItsJsonText() {
    McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("odd", Map.of()));
    assertThat(r.content()).singleElement().isInstanceOf(McpSchema.TextContent.class);
    assertThat(((McpSchema.TextContent) r.content().get(0)).text()).contains("hologram");
  }
}

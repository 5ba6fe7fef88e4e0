package dev.rcrt.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a hostile or sloppy MCP server can put in a tool name, and what the import makes of it. */
class McpImportNamesTest {
  /** A tool as a server's tools/list answer deserialises it (the SDK's builder would refuse an empty name). */
  private static McpSchema.Tool tool(String name) {
    return new McpSchema.Tool(name, null, null, Map.of("type", "object"), null, null, null);
  }

  private static List<BreadcrumbCreate> imported(String... names) {
    return McpImport.records(List.of(names).stream().map(McpImportNamesTest::tool).toList(), "srv", RcrtJson.parse("{\"url\":\"http://127.0.0.1:1/mcp\"}"));
  }

  @Test
  void namesOutsideTheSpecificationsRuleAreLeftOut() {
    List<BreadcrumbCreate> records = imported(
        "../../etc/passwd", "", "two words", "evil\u202Egnp.exe", "tab\there", "x".repeat(129), "ok_name", "get-sum", "admin.tools.list");
    assertThat(records).extracting(r -> r.context().get("name").asText())
        .containsExactly("srv.ok_name", "srv.get-sum", "srv.admin.tools.list");
  }

  @Test
  void idsAreDerivedWithoutDotsAndWithoutCollisions() {
    List<BreadcrumbCreate> records = imported("a.b", "a_2eb", "a_b", "a__b");
    assertThat(records).extracting(BreadcrumbCreate::id)
        .containsExactly("mcp-srv-a_2eb", "mcp-srv-a__2eb", "mcp-srv-a__b", "mcp-srv-a____b")
        .doesNotHaveDuplicates()
        .allSatisfy(id -> assertThat(id).matches("[A-Za-z0-9_-]+"));
  }

  @Test
  void anAliasOutsideItsRuleIsRefused() {
    assertThatThrownBy(() -> McpImport.records(List.of(tool("t")), "../x", RcrtJson.object()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("alias");
  }
}

package dev.rcrt.tools.js;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.Selector;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import dev.rcrt.tools.testing.ToolHarness;
import java.security.KeyPairGenerator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TypeScript is transpiled once per store: the first runtime keeps the JavaScript as a {@code
 * tool.transpiled.v1} record, and another runtime on the same store (another process, here another
 * runner with its own {@code JavaScriptRuntime}) runs it without transpiling, but only a record the
 * trust policy trusts and that was made from this very source.
 */
class SharedTranspilesTest {
  private static final String SOURCE = "export function execute(input: {n: number}): {doubled: number} { return {doubled: input.n * 2}; }";
  private static final String PLANTED_JS = "export function execute(input) { return {doubled: -1, planted: true}; }";

  private final ToolHarness first = new ToolHarness();

  @AfterEach
  void close() {
    first.close();
  }

  private void defineTool() {
    first.define("tool.code.v1", """
        {"name":"ts-double","description":"doubles","code":{"language":"typescript","source":%s},"input_schema":{"type":"object"}}
        """.formatted(RcrtJson.write(RcrtJson.nodes().textNode(SOURCE))));
  }

  private Breadcrumb kept() {
    List<Breadcrumb> kept = first.store.search(Selector.schema("tool.transpiled.v1"), 10, 0);
    assertThat(kept).hasSize(1);
    return kept.get(0);
  }

  /** Replaces the kept record with one under the same id written by {@code writer} with {@code context}. */
  private void replaceKept(String writer, ObjectNode context) {
    Breadcrumb kept = kept();
    first.store.delete(kept.id());
    first.store.create(BreadcrumbCreate.builder("tool.transpiled.v1", kept.title()).id(kept.id()).createdBy(writer).context(context).build());
  }

  private ToolResponse callFromAnotherRuntime(ToolTrustPolicy policy) {
    try (ToolRunner other = ToolRunner.builder(first.store).trustPolicy(policy).build()) {
      return other.call(ToolRequest.of("ts-double", RcrtJson.parse("{\"n\":21}"), null));
    }
  }

  @Test
  void theFirstTranspileIsKeptAndAnotherRuntimeOnTheStoreRunsTheKeptJavaScript() {
    defineTool();
    assertThat(first.call("ts-double", "{\"n\":21}").output().get("doubled").asInt()).isEqualTo(42);
    Breadcrumb kept = kept();
    assertThat(kept.createdBy()).as("written by the host").isNull();
    assertThat(kept.context().get("compiler").asText()).matches("typescript \\d+\\.\\d+\\.\\d+");
    assertThat(kept.context().get("source_sha256").asText()).hasSize(64);
    assertThat(kept.context().get("javascript").asText()).contains("input.n * 2").doesNotContain(": number");

    // the other runtime takes what the store keeps instead of transpiling: plant JavaScript the source could never give
    ObjectNode planted = ((ObjectNode) kept.context().deepCopy()).put("javascript", PLANTED_JS);
    replaceKept(null, planted);
    ToolResponse r = callFromAnotherRuntime(ToolHarness.LOCAL_TEST_POLICY);
    assertThat(RcrtJson.write(r.output())).isEqualTo("{\"doubled\":-1,\"planted\":true}");
    assertThat(first.store.search(Selector.schema("tool.transpiled.v1"), 10, 0)).hasSize(1);
  }

  @Test
  void aRecordAnyoneButTheHostWroteIsIgnoredAndTheSourceIsTranspiled() {
    defineTool();
    first.call("ts-double", "{\"n\":1}");
    for (String writer : List.of("tool:breadcrumb-create", "agent:helper", "user:mallory")) {
      replaceKept(writer, ((ObjectNode) kept().context().deepCopy()).put("javascript", PLANTED_JS));
      ToolResponse r = callFromAnotherRuntime(ToolHarness.LOCAL_TEST_POLICY);
      assertThat(r.output().get("doubled").asInt()).as(writer).isEqualTo(42);
    }
  }

  @Test
  void aRecordMadeFromAnotherSourceOrCompilerIsIgnored() {
    defineTool();
    first.call("ts-double", "{\"n\":1}");
    ObjectNode context = ((ObjectNode) kept().context().deepCopy()).put("javascript", PLANTED_JS);
    replaceKept(null, context.deepCopy().put("source_sha256", "0".repeat(64)));
    assertThat(callFromAnotherRuntime(ToolHarness.LOCAL_TEST_POLICY).output().get("doubled").asInt()).isEqualTo(42);
    replaceKept(null, context.deepCopy().put("compiler", "typescript 0.0.1"));
    assertThat(callFromAnotherRuntime(ToolHarness.LOCAL_TEST_POLICY).output().get("doubled").asInt()).isEqualTo(42);
    replaceKept(null, context.deepCopy().set("javascript", RcrtJson.object().put("not", "text")));
    assertThat(callFromAnotherRuntime(ToolHarness.LOCAL_TEST_POLICY).output().get("doubled").asInt()).isEqualTo(42);
  }

  @Test
  void aToolCannotWriteATranspiledRecordThroughTheStoreItIsGiven() {
    first.define("tool.code.v1", """
        {"name":"planter","description":"tries to plant code","input_schema":{"type":"object"},
         "code":{"language":"javascript","source":"export async function execute(input, context) { try { await context.api.createBreadcrumb({schema_name: 'tool.transpiled.v1', title: 'x', context: {javascript: 'x'}}); return {planted: true}; } catch (e) { return {refused: String(e)}; } }"}}
        """);
    ToolResponse r = first.call("planter", "{}");
    assertThat(r.output().has("refused")).as(RcrtJson.write(r.output())).isTrue();
    assertThat(first.store.search(Selector.schema("tool.transpiled.v1"), 10, 0)).isEmpty();
  }

  @Test
  void whereRecordsMustBeSignedAnUnsignedOneIsIgnored() throws Exception {
    defineTool();
    first.call("ts-double", "{\"n\":1}");
    replaceKept(null, ((ObjectNode) kept().context().deepCopy()).put("javascript", PLANTED_JS));
    var publisher = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    Breadcrumb tool = first.store.search(Selector.schema("tool.code.v1"), 10, 0).get(0);
    first.store.delete(tool.id());
    first.store.create(BreadcrumbCreate.builder("tool.code.v1", tool.title())
        .context(RecordSignatures.sign("tool.code.v1", tool.context(), publisher.getPrivate(), publisher.getPublic())).build());
    ToolTrustPolicy signed = ToolTrustPolicy.builder().requireSignatures(publisher.getPublic()).build();
    ToolResponse r = callFromAnotherRuntime(signed);
    assertThat(r.errorCode()).as(r.error()).isNull();
    assertThat(r.output().get("doubled").asInt()).isEqualTo(42);
  }
}

package dev.rcrt.tools.trust;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.BreadcrumbCreate;
import dev.rcrt.core.BreadcrumbUpdate;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolRequest;
import dev.rcrt.tools.ToolResponse;
import dev.rcrt.tools.ToolRunner;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tool records signed by a publisher key, on a store whose writer fields are only a claim. */
class SignedToolsTest {
  private static final String TOOL = """
      {"name":"shout","description":"Upper-cases text","input_schema":{"type":"object"},
       "implementation":{"type":"builtin","handler":"shout"}}""";

  @TempDir Path dir;
  private final InMemoryBreadcrumbStore store = new InMemoryBreadcrumbStore();

  private static KeyPair keys() throws Exception {
    return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
  }

  private Breadcrumb publish(JsonNode context) {
    return store.create(BreadcrumbCreate.builder("tool.definition.v1", "shout").context(context).build());
  }

  private ToolRunner runner(KeyPair trusted) {
    return ToolRunner.builder(store)
        .handler("shout", (in, ctx) -> RcrtJson.object().put("text", in.path("text").asText().toUpperCase(java.util.Locale.ROOT)))
        .trustPolicy(ToolTrustPolicy.builder().requireSignatures(trusted.getPublic()).build())
        .build();
  }

  private static ToolResponse call(ToolRunner runner) {
    return runner.call(ToolRequest.of("shout", RcrtJson.object().put("text", "hi"), "agent"));
  }

  @Test
  void aToolSignedByATrustedPublisherRunsAndTamperingWithItStopsIt() throws Exception {
    KeyPair publisher = keys();
    Breadcrumb tool = publish(RecordSignatures.sign("tool.definition.v1", RcrtJson.parse(TOOL), publisher.getPrivate(), publisher.getPublic()));
    try (ToolRunner runner = runner(publisher)) {
      assertThat(call(runner).output().get("text").asText()).isEqualTo("HI");

      ObjectNode tampered = tool.context().deepCopy();
      ((ObjectNode) tampered.get("implementation")).put("handler", "other"); // the signature stays, the behaviour changes
      store.update(tool.id(), tool.version(), BreadcrumbUpdate.ofContext(tampered));

      ToolResponse refused = call(runner);
      assertThat(refused.success()).isFalse();
      assertThat(refused.errorCode()).isEqualTo("tool_untrusted");
      assertThat(refused.error()).isEqualTo("tool 'shout' (breadcrumb '" + tool.id() + "') was not run: its signature does not match:"
          + " a signed field (schema_name or context) changed after signing");
      assertThat(runner.discovery().discover().items()).as("not offered either").isEmpty();
    }
  }

  @Test
  void anUnsignedToolAndOneSignedByAnotherKeyAreRefusedSayingWhy() throws Exception {
    KeyPair publisher = keys();
    KeyPair stranger = keys();
    try (ToolRunner runner = runner(publisher)) {
      publish(RcrtJson.parse(TOOL));
      assertThat(call(runner).error()).endsWith("was not run: it is not signed (no context.signature)");

      publish(RecordSignatures.sign("tool.definition.v1", RcrtJson.parse(TOOL), stranger.getPrivate(), stranger.getPublic()));
      assertThat(call(runner).error()).endsWith("it is signed by key " + RecordSignatures.keyId(stranger.getPublic())
          + ", which is not a trusted publisher key");
    }
  }

  @Test
  void theSignatureCoversTheCanonicalFormSoKeyOrderAndSpacingDoNotMatter() throws Exception {
    KeyPair publisher = keys();
    ObjectNode signed = RecordSignatures.sign("tool.v1", RcrtJson.parse("{\"b\":1.0,\"a\":{\"y\":\"é\",\"x\":[1,2]}}"),
        publisher.getPrivate(), publisher.getPublic());
    JsonNode reordered = RcrtJson.parse("{\"signature\":" + RcrtJson.write(signed.get("signature"))
        + ",  \"a\":{\"x\":[1, 2],\"y\":\"\\u00e9\"},\"b\":1}");

    assertThat(RecordSignatures.problem("tool.v1", reordered, java.util.List.of(publisher.getPublic()))).isNull();
    assertThat(RecordSignatures.problem("tool.code.v1", reordered, null)).as("the schema is signed too").contains("does not match");
  }

  @Test
  void keysAreReadFromPemFilesAndThePublicKeyIsDerivedFromThePrivateOne() throws Exception {
    KeyPair pair = keys();
    Path priv = dir.resolve("publisher.pem");
    Path pub = dir.resolve("publisher.pub.pem");
    Files.writeString(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
    Files.writeString(pub, pem("PUBLIC KEY", pair.getPublic().getEncoded()));

    assertThat(RecordSignatures.readPublicKey(pub)).isEqualTo(pair.getPublic());
    assertThat(RecordSignatures.publicKeyOf(RecordSignatures.readPrivateKey(priv))).isEqualTo(pair.getPublic());
    assertThat(RecordSignatures.keyId(pair.getPublic())).matches("ed25519:[0-9a-f]{16}");
  }

  static String pem(String label, byte[] der) {
    return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END " + label + "-----\n";
  }
}

package dev.rcrt.cli.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.tools.RecordSignatures;
import dev.rcrt.tools.ToolTrustPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "sign",
    description = {
      "Sign the records that become behaviour (tools, tool configs, agents, schema definitions) in",
      "bootstrap-breadcrumb FILEs with a publisher's Ed25519 key, in place, keeping the file's layout: each gets context.signature",
      "over the canonical JSON (RFC 8785) of its schema_name and context. Runners started with",
      "--trusted-key PUBLIC.pem run only records signed so and unchanged since. Make a key with",
      "openssl genpkey -algorithm ed25519 -out publisher.pem; its public half with",
      "openssl pkey -in publisher.pem -pubout -out publisher.pub.pem."
    })
public final class SignCommand implements Callable<Integer> {
  private final Cli cli;

  @Option(names = "--key", paramLabel = "PEM", required = true, converter = Converters.PrivateKeyFile.class,
      description = "The publisher's Ed25519 private key (PKCS#8 PEM).")
  PrivateKey key;

  @Parameters(arity = "1..*", paramLabel = "FILE", converter = Converters.ExistingPath.class,
      description = "Breadcrumb JSON files: one object or an array of objects.")
  List<Path> files = new ArrayList<>();

  public SignCommand(Cli cli) {
    this.cli = cli;
  }

  @Override
  public Integer call() throws Exception {
    PublicKey publicKey = RecordSignatures.publicKeyOf(key);
    for (Path file : files) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      JsonNode root = RcrtJson.parse(text);
      int signed = 0;
      if (root.isArray()) {
        for (JsonNode element : (ArrayNode) root) {
          signed += sign(element, publicKey);
        }
      } else {
        signed += sign(root, publicKey);
      }
      // the signatures go into the file's own text; should that text not read back as the signed records, the file is rewritten
      String kept = SignedText.sign(text, (schema, context) -> behaviour(schema, context)
          ? RecordSignatures.sign(schema, context, key, publicKey).get(RecordSignatures.FIELD) : null);
      boolean layoutKept = RcrtJson.parse(kept).equals(root);
      Files.writeString(file, layoutKept ? kept : RcrtJson.writePretty(root) + "\n", StandardCharsets.UTF_8);
      cli.note(file + ": signed " + signed + " record(s) with key " + RecordSignatures.keyId(publicKey)
          + (layoutKept ? "" : " (the file was rewritten as indented JSON: its layout could not be kept)"));
    }
    return 0;
  }

  private static boolean behaviour(@Nullable String schema, JsonNode context) {
    return schema != null && ToolTrustPolicy.PROTECTED_SCHEMAS.contains(schema) && context.isObject();
  }

  private int sign(JsonNode element, PublicKey publicKey) {
    String schema = element.path("schema_name").asText(null);
    if (!(element instanceof ObjectNode record) || !behaviour(schema, element.path("context"))) {
      return 0;
    }
    record.set("context", RecordSignatures.sign(schema, record.get("context"), key, publicKey));
    return 1;
  }
}

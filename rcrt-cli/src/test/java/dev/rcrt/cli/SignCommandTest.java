package dev.rcrt.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./rcrt sign, and what validate and tool call make of signed, tampered and foreign records. */
class SignCommandTest {
  @TempDir Path dir;
  private Path key;
  private Path publicKey;
  private Path tools;

  @BeforeEach
  void keysAndATool() throws Exception {
    KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    key = Files.writeString(dir.resolve("publisher.pem"), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
    publicKey = Files.writeString(dir.resolve("publisher.pub.pem"), pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    tools = Files.writeString(dir.resolve("tools.json"), """
        [{"id":"tool-def-echo-signed","schema_name":"tool.definition.v1","title":"Echo","tags":["tool"],
          "context":{"name":"echo","description":"Return the given message unchanged",
            "inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}},
         {"schema_name":"user.message.v1","title":"not behaviour","context":{"content":"left unsigned"}}]""");
  }

  @Test
  void signedToolsRunWithTheTrustedKeyAndValidate() throws Exception {
    CliHarness sign = CliHarness.run("sign", "--key", key.toString(), tools.toString());

    assertThat(sign.status).as(sign.err()).isZero();
    assertThat(sign.err()).contains("signed 1 record(s) with key ed25519:");
    var records = RcrtJson.parse(Files.readString(tools));
    assertThat(records.get(0).path("context").path("signature").path("alg").asText()).isEqualTo("Ed25519");
    assertThat(records.get(1).path("context").has("signature")).as("only records that become behaviour").isFalse();

    CliHarness validate = CliHarness.run("validate", "--trusted-key", publicKey.toString(), tools.toString());
    assertThat(validate.status).as(validate.out()).isZero();
    CliHarness call = CliHarness.run("tool", "call", "echo", "{\"message\":\"hi\"}", "--breadcrumbs", tools.toString(),
        "--trusted-key", publicKey.toString());
    assertThat(call.status).as(call.err()).isZero();
    assertThat(call.out()).contains("\"echo\" : \"hi\"");
  }

  @Test
  void signingKeepsTheFilesLayoutAndSigningAgainReplacesTheSignature() throws Exception {
    String pretty = """
        {
            "schema_name": "tool.definition.v1",
            "title": "Echo",
            "context": {
                "name": "echo",
                "description": "Return the given message unchanged"
            },
            "tags": ["tool"]
        }
        """;
    Path file = Files.writeString(dir.resolve("pretty.json"), pretty);
    CliHarness sign = CliHarness.run("sign", "--key", key.toString(), file.toString());
    assertThat(sign.status).as(sign.err()).isZero();
    assertThat(sign.err()).doesNotContain("rewritten");
    String signed = Files.readString(file);
    List<String> lines = signed.lines().toList();
    assertThat(lines).hasSize((int) pretty.lines().count() + 1);
    assertThat(lines.get(5)).isEqualTo("        \"description\": \"Return the given message unchanged\",");
    assertThat(lines.get(6)).startsWith("        \"signature\": {\"alg\":\"Ed25519\"");
    assertThat(signed.replace(",\n" + lines.get(6), "")).isEqualTo(pretty);

    CliHarness again = CliHarness.run("sign", "--key", key.toString(), file.toString());
    assertThat(again.status).isZero();
    assertThat(Files.readString(file)).isEqualTo(signed); // Ed25519 is deterministic: the same signature, in place
    CliHarness validate = CliHarness.run("validate", "--trusted-key", publicKey.toString(), file.toString());
    assertThat(validate.status).as(validate.out()).isZero();

    String compact = "[{\"schema_name\":\"tool.v1\",\"title\":\"A\",\"context\":{\"name\":\"a\"}},{\"schema_name\":\"user.message.v1\",\"context\":{}}]\n";
    Path one = Files.writeString(dir.resolve("compact.json"), compact);
    assertThat(CliHarness.run("sign", "--key", key.toString(), one.toString()).status).isZero();
    String oneSigned = Files.readString(one);
    assertThat(oneSigned).startsWith("[{\"schema_name\":\"tool.v1\",\"title\":\"A\",\"context\":{\"name\":\"a\", \"signature\": {")
        .endsWith("}},{\"schema_name\":\"user.message.v1\",\"context\":{}}]\n");
  }

  @Test
  void aTamperedSignedToolFailsValidationAndIsNotRunWithAOneLineReason() throws Exception {
    CliHarness.run("sign", "--key", key.toString(), tools.toString());
    Files.writeString(tools, Files.readString(tools).replace("Return the given message unchanged", "Send the message to evil.example"));

    CliHarness validate = CliHarness.run("validate", tools.toString());
    CliHarness call = CliHarness.run("tool", "call", "echo", "{\"message\":\"hi\"}", "--breadcrumbs", tools.toString(),
        "--trusted-key", publicKey.toString());

    assertThat(validate.status).isEqualTo(1);
    assertThat(validate.out()).contains("/context/signature: its signature does not match: a signed field (schema_name or context) changed after signing");
    assertThat(call.status).isEqualTo(1);
    assertThat(call.err().strip().lines().toList()).last().asString()
        .contains("tool 'echo' (breadcrumb 'tool-def-echo-signed') was not run: its signature does not match");
  }

  @Test
  void withATrustedKeyUnsignedToolsAreProblemsAndABadKeyFileIsAUsageError() throws Exception {
    CliHarness validate = CliHarness.run("validate", "--trusted-key", publicKey.toString(), tools.toString());
    assertThat(validate.status).isEqualTo(1);
    assertThat(validate.out()).contains("/context/signature: it is not signed");

    CliHarness badKey = CliHarness.run("sign", "--key", publicKey.toString(), tools.toString());
    assertThat(badKey.status).isEqualTo(2);
    assertThat(badKey.err()).contains("expected a PEM block '-----BEGIN PRIVATE KEY-----'");
  }

  @Test
  void toolsListWithATrustedKeyListsOnlyTheSignedToolsAndNamesTheOthers() throws Exception {
    CliHarness.run("sign", "--key", key.toString(), tools.toString());
    Path unsigned = Files.writeString(dir.resolve("unsigned.json"), """
        {"id":"tool-def-shout","schema_name":"tool.definition.v1","title":"Shout","tags":["tool"],
         "context":{"name":"shout","description":"Shout it","inputSchema":{"type":"object"}}}""");

    CliHarness list = CliHarness.run("tools", "list", "--breadcrumbs", tools.toString(), "--breadcrumbs", unsigned.toString(),
        "--trusted-key", publicKey.toString());

    assertThat(list.status).as(list.err()).isZero();
    assertThat(list.out()).contains("echo").doesNotContain("shout");
    assertThat(list.err()).contains("tool-def-shout").contains("it is not signed");
    CliHarness all = CliHarness.run("tools", "list", "--breadcrumbs", tools.toString(), "--breadcrumbs", unsigned.toString());
    assertThat(all.out()).contains("echo").contains("shout");
  }

  @Test
  void anUnsignedRecordOfTheSameNameWrittenLaterDoesNotHideTheSignedTool() throws Exception {
    CliHarness.run("sign", "--key", key.toString(), tools.toString());
    Path lookalike = Files.writeString(dir.resolve("lookalike.json"), """
        {"id":"tool-def-echo-lookalike","schema_name":"tool.definition.v1","title":"Echo","tags":["tool"],
         "context":{"name":"echo","description":"Not the publisher's echo","inputSchema":{"type":"object"}}}""");

    CliHarness list = CliHarness.run("tools", "list", "--breadcrumbs", tools.toString(), "--breadcrumbs", lookalike.toString(),
        "--trusted-key", publicKey.toString());

    assertThat(list.status).as(list.err()).isZero();
    assertThat(list.out()).contains("echo").doesNotContain("Not the publisher's echo");
    assertThat(list.err()).contains("tool-def-echo-lookalike").contains("it is not signed");
  }

  static String pem(String label, byte[] der) {
    return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END " + label + "-----\n";
  }
}

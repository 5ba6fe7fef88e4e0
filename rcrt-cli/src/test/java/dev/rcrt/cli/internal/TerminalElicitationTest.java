package dev.rcrt.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rcrt.core.RcrtJson;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A server's elicitation asked at the command line, answered line by line. */
class TerminalElicitationTest {
  private static final String SCHEMA = """
      {"type":"object","required":["name","seat"],"properties":{
        "name":{"type":"string","description":"Your name"},
        "age":{"type":"integer","default":30},
        "seat":{"type":"string","oneOf":[{"const":"a1","title":"Aisle"},{"const":"w1","title":"Window"}]},
        "meals":{"type":"array","items":{"type":"string","enum":["veg","fish","meat"]}},
        "vip":{"type":"boolean"}}}""";
  private final ByteArrayOutputStream shown = new ByteArrayOutputStream();

  private McpSchema.ElicitResult answer(String lines) {
    @SuppressWarnings("unchecked")
    Map<String, Object> schema = RcrtJson.convert(RcrtJson.parse(SCHEMA), Map.class);
    return new TerminalElicitation(new BufferedReader(new StringReader(lines)), new PrintStream(shown, true, StandardCharsets.UTF_8), "The server")
        .ask(McpSchema.ElicitFormRequest.builder("Book a seat", schema).build());
  }

  @Test
  void eachFieldIsAskedInItsTypeWithItsChoicesAndDefaultAndWrongAnswersAreAskedAgain() {
    McpSchema.ElicitResult r = answer(String.join("\n", "", "", "Ada", "", "seat 9", "window", "veg, fish", "maybe", "yes", ""));
    assertThat(r.action()).isEqualTo(McpSchema.ElicitResult.Action.ACCEPT);
    assertThat(r.content()).isEqualTo(Map.of("name", "Ada", "seat", "w1", "meals", List.of("veg", "fish"), "vip", true));
    String text = shown.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("The server asks: Book a seat", "name (string, required) Your name: ", "  (required)", "age (integer) [30]: ",
        "seat (string, one of a1 (Aisle) | w1 (Window), required): ", "'seat 9' is not one of a1 (Aisle) | w1 (Window)",
        "meals (array, one or more of veg | fish | meat): ", "answer yes or no");
  }

  @Test
  void declineCancelAndTheEndOfInputAreAnswersToo() {
    assertThat(answer("d\n").action()).isEqualTo(McpSchema.ElicitResult.Action.DECLINE);
    assertThat(answer("cancel\n").action()).isEqualTo(McpSchema.ElicitResult.Action.CANCEL);
    assertThat(answer("a\nAda\n").action()).as("input ended before the seat").isEqualTo(McpSchema.ElicitResult.Action.CANCEL);
    assertThat(answer("a\nAda\n\nx\ny\nz\n").action()).as("three wrong seats").isEqualTo(McpSchema.ElicitResult.Action.CANCEL);
  }
}

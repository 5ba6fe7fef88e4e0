package dev.rcrt.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the CLI keeps MCP servers' tokens: a file only the user reads, in a directory nobody else reads or writes. */
class OAuthTokenFilesTest {
  @TempDir Path home;

  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private OAuthTokenFiles files(Path dir) {
    Cli cli = new Cli(new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8),
        new BufferedReader(new StringReader("")), Map.of("RCRT_OAUTH_DIR", dir.toString()), false);
    return OAuthTokenFiles.of(cli);
  }

  @Test
  void tokensAreSavedForTheirOwnerOnlyAndReadByTheNextCommand() throws Exception {
    Path dir = home.resolve("oauth");
    files(dir).save("https://mcp.example.com/mcp", "{\"access_token\":\"t-1\"}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    try (Stream<Path> list = Files.list(dir)) {
      Path file = list.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
      assertThat(file.getFileName().toString()).doesNotContain("example"); // the server is not readable from the name either
    }
    assertThat(files(dir).load("https://mcp.example.com/mcp")).contains("{\"access_token\":\"t-1\"}");
    assertThat(files(dir).load("https://other.example.com/mcp")).isEmpty();
  }

  @Test
  void aDirectoryOthersMayReadIsNotUsedAndSaysWhy() throws Exception {
    Path dir = Files.createDirectory(home.resolve("shared"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    OAuthTokenFiles tokens = files(dir);
    tokens.save("https://mcp.example.com/mcp", "{\"access_token\":\"secret-token-Zq9w\"}");
    try (Stream<Path> list = Files.list(dir)) {
      assertThat(list).isEmpty();
    }
    assertThat(tokens.load("https://mcp.example.com/mcp")).as("kept for this command").contains("{\"access_token\":\"secret-token-Zq9w\"}");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("not used").contains("may be read by others").doesNotContain("secret-token-Zq9w");
  }
}

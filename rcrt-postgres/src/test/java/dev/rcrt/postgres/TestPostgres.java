package dev.rcrt.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.testing.LogWaits;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * A real PostgreSQL for the tests. With {@code RCRT_TEST_POSTGRES_URL} set (a JDBC URL, user and
 * password as URL parameters) the tests use that server; otherwise one is started once per JVM
 * from the PostgreSQL binaries Maven artifact ({@code io.zonky.test.postgres}), on a free loopback
 * port, and stopped when the JVM exits. PostgreSQL refuses to run as root, so under root (as in CI)
 * the server runs as {@code nobody} through {@code setpriv}.
 *
 * <p>Each {@link #freshSchema()} is a new, empty schema name, so tests never see each other's data.
 */
public final class TestPostgres {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static String url;
  private static HikariDataSource pool;

  private TestPostgres() {}

  /** A pooled data source on the test server (HikariCP, as a host would use), shared by the JVM. */
  public static synchronized DataSource dataSource() {
    if (pool == null) {
      String external = System.getenv("RCRT_TEST_POSTGRES_URL");
      url = external != null && !external.isBlank() ? external : start();
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setPoolName("rcrt-test-postgres");
      config.setMaximumPoolSize(40);
      config.setMinimumIdle(0);
      pool = new HikariDataSource(config);
    }
    return pool;
  }

  /**
   * The {@code ./rcrt --store} URL of the test server with {@code schema}:
   * {@code postgresql://USER[:PASSWORD]@HOST:PORT/DB?schema=…}.
   */
  public static String storeUrl(String schema) {
    dataSource();
    java.net.URI jdbc = java.net.URI.create(url.substring("jdbc:".length()));
    String user = "postgres";
    String password = null;
    for (String pair : jdbc.getRawQuery() == null ? new String[0] : jdbc.getRawQuery().split("&")) {
      if (pair.startsWith("user=")) {
        user = pair.substring(5);
      } else if (pair.startsWith("password=")) {
        password = pair.substring(9);
      }
    }
    return "postgresql://" + user + (password == null ? "" : ":" + password) + "@" + jdbc.getHost() + ":" + jdbc.getPort()
        + jdbc.getPath() + "?schema=" + schema;
  }

  /** The JDBC URL of the test server, for another JVM to connect with. */
  public static synchronized String jdbcUrl() {
    dataSource();
    return url;
  }

  /** A schema name no test has used in this JVM. */
  public static String freshSchema() {
    return "rcrt_test_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
  }

  /**
   * Ends every other connection's session on the server, as an operator's pg_terminate_backend
   * would, and then lets the shared pool replace its idle connections (they were ended too; a host
   * would see one failed call per dead connection instead).
   */
  public static int terminateOtherBackends(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            + " WHERE pid <> pg_backend_pid() AND datname = current_database()")) {
      rs.next();
      return rs.getInt(1);
    } finally {
      if (ds instanceof HikariDataSource hikari && hikari.getHikariPoolMXBean() != null) {
        hikari.getHikariPoolMXBean().softEvictConnections();
      }
    }
  }

  private static String start() {
    try {
      Path home = Path.of(System.getProperty("java.io.tmpdir"), "rcrt-test-postgres");
      Path binaries = extract(home.resolve("binaries"));
      Path data = Files.createTempDirectory(home, "data-");
      boolean root = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
      List<String> asServer = root ? List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups") : List.of();
      if (root) {
        // nobody enters the folder and reads the binaries; the data folders stay their owners' alone (0700): a recursive
        // chmod of the folder made another JVM's new data folder 0755 under it, and PostgreSQL refuses to start on that
        run(List.of("chmod", "a+rx", home.toString()));
        run(List.of("chmod", "-R", "a+rX", binaries.toString()));
        run(List.of("chown", "-R", "65534:65534", data.toString()));
      }
      List<String> initdb = new ArrayList<>(asServer);
      initdb.addAll(List.of(binaries.resolve("bin/initdb").toString(), "-A", "trust", "-U", "postgres", "-D", data.toString(),
          "-E", "UTF8", "--no-locale", "--no-sync"));
      run(initdb);
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      List<String> postgres = new ArrayList<>(asServer);
      postgres.addAll(List.of(binaries.resolve("bin/postgres").toString(), "-D", data.toString(), "-p", String.valueOf(port),
          "-k", data.toString(), "-h", "127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
          "-c", "full_page_writes=off", "-c", "max_connections=300"));
      Process server = new ProcessBuilder(postgres).redirectErrorStream(true)
          .redirectOutput(data.resolve("server.log").toFile()).start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, data)));
      String jdbc = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
      awaitReady(server, data);
      return jdbc;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the test PostgreSQL: " + e.getMessage(), e);
    }
  }

  /** The binaries, extracted once per machine into {@code dir} (a marker file says it is complete). */
  private static Path extract(Path dir) throws IOException {
    Path done = dir.resolve(".extracted");
    if (Files.exists(done)) {
      return dir;
    }
    Files.createDirectories(dir);
    try (InputStream txz = TestPostgres.class.getResourceAsStream("/postgres-linux-x86_64.txz")) {
      if (txz == null) {
        throw new IllegalStateException("the PostgreSQL binaries artifact is not on the test classpath");
      }
      try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(new BufferedInputStream(txz)))) {
        for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
          Path target = dir.resolve(e.getName()).normalize();
          if (!target.startsWith(dir)) {
            throw new IOException("archive entry outside the target: " + e.getName());
          }
          if (e.isDirectory()) {
            Files.createDirectories(target);
          } else if (e.isSymbolicLink()) {
            Files.createDirectories(target.getParent());
            Files.deleteIfExists(target);
            Files.createSymbolicLink(target, Path.of(e.getLinkName()));
          } else {
            Files.createDirectories(target.getParent());
            Files.copy(tar, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            if ((e.getMode() & 0100) != 0) {
              Set<PosixFilePermission> p = EnumSet.copyOf(Files.getPosixFilePermissions(target));
              p.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE));
              Files.setPosixFilePermissions(target, p);
            }
          }
        }
      }
    }
    Files.createFile(done);
    return dir;
  }

  private static void run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Waits for the server's own word that it accepts connections, woken by each write to its log. */
  private static void awaitReady(Process server, Path data) throws IOException {
    try {
      LogWaits.until(data.resolve("server.log"), "database system is ready to accept connections", server, Duration.ofSeconds(60));
    } catch (AssertionError notStarted) {
      throw new IllegalStateException("the test PostgreSQL did not start: " + notStarted.getMessage(), notStarted);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the test PostgreSQL started", e);
    }
  }

  private static void stop(Process server, Path data) {
    server.destroy(); // SIGTERM: PostgreSQL's smart shutdown
    try {
      if (!server.waitFor(10, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
    } catch (InterruptedException e) {
      server.destroyForcibly();
    }
    run(List.of("rm", "-rf", data.toString()));
  }
}

package dev.rcrt.cli.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.rcrt.core.BreadcrumbStore;
import dev.rcrt.core.InMemoryBreadcrumbStore;
import dev.rcrt.embeddings.minilm.MiniLmEmbeddings;
import dev.rcrt.postgres.PostgresBreadcrumbStore;
import dev.rcrt.serverstore.RcrtServerStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Where the command line's store lives: {@code memory}, {@code
 * postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]} (also {@code postgres://}; the
 * password may come from {@code PGPASSWORD} instead), or a running RCRT server, {@code
 * rcrt+http://HOST:PORT} (or {@code rcrt+https://}), authenticated with {@code RCRT_TOKEN}, else
 * a token fetched for {@code RCRT_OWNER_ID} and {@code RCRT_AGENT_ID}, else none (a server with
 * {@code AUTH_MODE=disabled}). {@link #toString()} never shows the password.
 */
public record StoreUrl(String kind, @Nullable URI uri) {
  public static final StoreUrl MEMORY = new StoreUrl("memory", null);

  /**
   * Reads a store URL.
   *
   * @throws IllegalArgumentException saying what is wrong and how a URL looks
   */
  public static StoreUrl parse(String text) {
    if (text.equals("memory")) {
      return MEMORY;
    }
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw invalid(text, e.getReason());
    }
    if ("rcrt+http".equals(uri.getScheme()) || "rcrt+https".equals(uri.getScheme())) {
      if (uri.getHost() == null) {
        throw invalid(text, "an RCRT server URL needs a host, as in rcrt+http://localhost:8081");
      }
      return new StoreUrl("rcrt", uri);
    }
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw invalid(text, "the scheme must be postgresql://, rcrt+http:// or rcrt+https:// (or the word memory)");
    }
    if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
      throw invalid(text, "it needs a host and a database name");
    }
    return new StoreUrl("postgresql", uri);
  }

  private static IllegalArgumentException invalid(String text, String why) {
    String shown = text.replaceAll("://([^:@/]*):[^@/]*@", "://$1:***@");
    return new IllegalArgumentException(
        "store URL '" + shown + "' is not usable: " + why
            + "; write memory, postgresql://user@localhost:5432/rcrt?schema=rcrt or rcrt+http://localhost:8081");
  }

  /** An opened store and what closing it releases (the store's listener, the connection pool). */
  record Opened(BreadcrumbStore store, AutoCloseable resources) {}

  /**
   * Opens the store on a small connection pool; the caller closes it. Runs the PostgreSQL migrations
   * when due. The memory and PostgreSQL stores embed with RCRT's own model in process (MiniLM,
   * loaded on first use; the memory store only once something searches by meaning).
   */
  Opened open(Map<String, String> env) {
    if (uri == null) {
      MiniLmEmbeddings minilm = MiniLmEmbeddings.create();
      return new Opened(InMemoryBreadcrumbStore.builder().embeddings(minilm).embedOnDemand(true).build(), minilm::close);
    }
    if (kind.equals("rcrt")) {
      RcrtServerStore.Builder b = RcrtServerStore.builder(uri.toString().substring("rcrt+".length()));
      String token = env.get("RCRT_TOKEN");
      if (token != null && !token.isBlank()) {
        b.token(token);
      } else if (env.get("RCRT_OWNER_ID") != null && env.get("RCRT_AGENT_ID") != null) {
        b.credentials(env.get("RCRT_OWNER_ID"), env.get("RCRT_AGENT_ID"), java.util.List.of("curator", "emitter", "subscriber"));
      }
      RcrtServerStore store = b.build();
      return new Opened(store, store::close);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {uri.getHost()});
    ds.setPortNumbers(new int[] {uri.getPort() > 0 ? uri.getPort() : 5432});
    ds.setDatabaseName(uri.getPath().substring(1));
    String user = uri.getRawUserInfo();
    String password = env.get("PGPASSWORD");
    if (user != null) {
      int colon = user.indexOf(':');
      if (colon >= 0) {
        password = decode(user.substring(colon + 1));
        user = user.substring(0, colon);
      }
      ds.setUser(decode(user));
    }
    if (password != null) {
      ds.setPassword(password);
    }
    ds.setApplicationName("rcrt");
    String schema = "rcrt";
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        if (pair.startsWith("schema=")) {
          schema = decode(pair.substring("schema=".length()));
        }
      }
    }
    HikariConfig config = new HikariConfig();
    config.setDataSource(ds);
    config.setPoolName("rcrt-cli");
    config.setMaximumPoolSize(8);
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      throw new dev.rcrt.postgres.PostgresStoreException(
          dev.rcrt.core.StoreErrorCode.STORE_UNAVAILABLE.code(),
          "cannot connect to the store " + this + (user == null || uri.getRawUserInfo() != null ? "" : " as " + decode(user)) + ": " + root.getMessage()
              + " (start PostgreSQL, or check --store / RCRT_STORE and PGPASSWORD)",
          true, e);
    }
    MiniLmEmbeddings minilm = MiniLmEmbeddings.create();
    try {
      PostgresBreadcrumbStore store = PostgresBreadcrumbStore.builder(pool).schema(schema).embeddings(minilm).build();
      return new Opened(store, () -> { // the model after the store (nothing embeds any more), the pool last, whatever fails
        try {
          store.close();
        } finally {
          try {
            minilm.close();
          } finally {
            pool.close();
          }
        }
      });
    } catch (RuntimeException e) {
      minilm.close();
      pool.close();
      throw e;
    }
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    if (uri == null) {
      return "memory";
    }
    // what a hint shows must work when pasted: the user, port, database and schema stay; only a password is hidden
    String user = uri.getRawUserInfo();
    if (user != null && user.indexOf(':') >= 0) {
      user = user.substring(0, user.indexOf(':')) + ":***";
    }
    String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery().replaceAll("(?i)(^|&)(password=)[^&]*", "$1$2***");
    return uri.getScheme() + "://" + (user == null ? "" : user + "@") + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
        + (uri.getRawPath() == null ? "" : uri.getRawPath()) + query;
  }
}

package dev.rcrt.mcp.internal;

import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.jspecify.annotations.Nullable;

/**
 * The streamable-HTTP endpoint: the SDK's servlet transport in an embedded Tomcat, bound to one
 * address, behind a bearer-token check when a token is set (answered 401 with {@code
 * WWW-Authenticate: Bearer} otherwise, the token compared in constant time) and a {@link
 * JsonRpcBodyFilter} that answers malformed bodies with JSON-RPC errors.
 */
public final class HttpListener implements AutoCloseable {
  /** The path MCP clients post to. */
  public static final String ENDPOINT = "/mcp";

  private final Tomcat tomcat;
  private final URI uri;
  private final Path base;

  /**
   * Starts listening.
   *
   * @param port 0 for a free port
   * @param bearerToken the token clients must send, or null for none
   * @throws IllegalStateException when the address cannot be bound
   */
  public HttpListener(HttpServletStreamableServerTransportProvider transport, String host, int port, @Nullable String bearerToken) {
    try {
      base = Files.createTempDirectory("rcrt-mcp-tomcat");
      tomcat = new Tomcat();
      tomcat.setBaseDir(base.toString());
      Connector connector = new Connector();
      connector.setPort(port);
      connector.setProperty("address", host);
      connector.setAsyncTimeout(0);
      tomcat.setConnector(connector);
      tomcat.getHost().setAutoDeploy(false);
      Context context = tomcat.addContext("", base.toString());
      Wrapper servlet = Tomcat.addServlet(context, "mcp", transport);
      servlet.setAsyncSupported(true);
      context.addServletMappingDecoded("/*", "mcp");
      if (bearerToken != null) {
        filter(context, "bearer", new BearerFilter(bearerToken));
      }
      filter(context, "json-rpc", new JsonRpcBodyFilter()); // after the token check: nobody unauthenticated gets the body read
      tomcat.start();
      String shown = host.contains(":") ? "[" + host + "]" : host;
      uri = URI.create("http://" + shown + ":" + connector.getLocalPort() + ENDPOINT);
    } catch (IOException | LifecycleException e) {
      throw new IllegalStateException("the MCP server could not listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** Adds {@code filter} for every path, after the filters added before it. */
  private static void filter(Context context, String name, Filter filter) {
    FilterDef def = new FilterDef();
    def.setFilterName(name);
    def.setFilter(filter);
    def.setAsyncSupported("true");
    context.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName(name);
    map.addURLPattern("/*");
    context.addFilterMap(map);
  }

  /** Where clients connect, such as {@code http://127.0.0.1:8808/mcp}. */
  public URI uri() {
    return uri;
  }

  /** Stops listening and removes Tomcat's working directory. */
  @Override
  public void close() {
    try {
      tomcat.stop();
      tomcat.destroy();
    } catch (LifecycleException e) {
      // stopping anyway
    }
    try (var files = Files.walk(base)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }

  /** Refuses requests without the bearer token. */
  private static final class BearerFilter implements Filter {
    private final byte[] expected;

    BearerFilter(String token) {
      this.expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
      String given = ((HttpServletRequest) request).getHeader("Authorization");
      if (given == null || !MessageDigest.isEqual(expected, given.getBytes(StandardCharsets.UTF_8))) {
        HttpServletResponse http = (HttpServletResponse) response;
        http.setHeader("WWW-Authenticate", "Bearer");
        http.sendError(401, "this MCP server takes a bearer token (Authorization: Bearer …)");
        return;
      }
      chain.doFilter(request, response);
    }
  }
}

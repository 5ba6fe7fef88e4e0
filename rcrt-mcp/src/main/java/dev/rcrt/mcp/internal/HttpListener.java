package dev.rcrt.mcp.internal;

import jakarta.servlet.Filter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The streamable-HTTP endpoint: the transport servlet ({@link StreamableHttp}) in an embedded Tomcat, bound to one
 * address, behind the given filters ({@link BearerFilter}, {@link JsonRpcBodyFilter}).
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
   * @param filters to run before the transport, in order (the bearer check, the JSON-RPC body check)
   * @throws IllegalStateException when the address cannot be bound
   */
  public HttpListener(jakarta.servlet.http.HttpServlet transport, String host, int port, java.util.List<Filter> filters) {
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
      for (int i = 0; i < filters.size(); i++) {
        filter(context, "filter-" + i, filters.get(i));
      }
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
}

package dev.rcrt.spring.boot.autoconfigure;

import dev.rcrt.mcp.McpToolServer;
import dev.rcrt.tools.ToolRunner;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * {@code rcrt.mcp.enabled=true}: the runner's tools served over MCP (streamable HTTP) at {@code
 * rcrt.mcp.path} on the application's own servlet web server, with {@code rcrt-mcp} on the class
 * path. {@code Host} and {@code Origin} are checked against {@code rcrt.mcp.allowed-hosts} and
 * {@code rcrt.mcp.allowed-origins}; a bearer token ({@code rcrt.mcp.bearer-token}) is required
 * unless the server can be reached from this machine only, which takes both a loopback bind
 * address ({@code server.address}, as A2A's {@code rcrt.a2a.host}; Boot listens on every interface
 * when it is not set) and loopback allowed hosts; it is checked before a request's body is read.
 */
@AutoConfiguration(after = RcrtAutoConfiguration.class)
@ConditionalOnClass({McpToolServer.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "rcrt.mcp", name = "enabled", havingValue = "true")
public class RcrtMcpAutoConfiguration {
  /** Created by Spring Boot when the auto-configuration applies. */
  public RcrtMcpAutoConfiguration() {}

  /**
   * The mounted server; Spring closes it with the context.
   *
   * @throws IllegalArgumentException at start for hosts reachable from other machines without a bearer token
   */
  @Bean
  @ConditionalOnBean(ToolRunner.class)
  McpToolServer.Mounted rcrtMcpServer(ToolRunner runner, RcrtProperties properties, org.springframework.core.env.Environment environment) {
    RcrtProperties.Mcp mcp = properties.getMcp();
    String bind = environment.getProperty("server.address");
    if ((mcp.getBearerToken() == null || mcp.getBearerToken().isBlank()) && !loopback(bind)) {
      throw new IllegalArgumentException("rcrt.mcp: the application's server listens on "
          + (bind == null || bind.isBlank() ? "every interface (server.address is not set)" : bind)
          + ", so /mcp is reachable from other machines: set rcrt.mcp.bearer-token, or bind a loopback address (server.address=127.0.0.1)");
    }
    try {
      return McpToolServer.builder(runner).serverInfo("rcrt", "0.1.0")
          .servlet(mcp.getPath(), mcp.getAllowedHosts(), mcp.getAllowedOrigins(), mcp.getBearerToken());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rcrt.mcp: " + e.getMessage() + " (rcrt.mcp.bearer-token), or allow only loopback hosts"
          + " (rcrt.mcp.allowed-hosts)", e);
    }
  }

  /** Whether {@code address} (a literal address or a name) is a loopback address; null or blank, every interface, is not. */
  private static boolean loopback(@org.jspecify.annotations.Nullable String address) {
    if (address == null || address.isBlank()) {
      return false;
    }
    try {
      return java.net.InetAddress.getByName(address.strip()).isLoopbackAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  @Bean
  ServletRegistrationBean<?> rcrtMcpServlet(McpToolServer.Mounted mounted, RcrtProperties properties) {
    ServletRegistrationBean<?> bean = new ServletRegistrationBean<>(mounted.servlet(), properties.getMcp().getPath());
    bean.setName("rcrtMcp");
    bean.setAsyncSupported(true);
    return bean;
  }

  /** The bearer and JSON-RPC checks, in their order, in front of the MCP servlet only. */
  @Bean
  FilterRegistrationBean<Filter> rcrtMcpFilters(McpToolServer.Mounted mounted, RcrtProperties properties) {
    List<Filter> filters = mounted.filters();
    Filter all = (request, response, chain) -> new FilterChain() {
      private int next;

      @Override
      public void doFilter(ServletRequest req, ServletResponse res) throws java.io.IOException, jakarta.servlet.ServletException {
        if (next < filters.size()) {
          filters.get(next++).doFilter(req, res, this);
        } else {
          chain.doFilter(req, res);
        }
      }
    }.doFilter(request, response);
    FilterRegistrationBean<Filter> bean = new FilterRegistrationBean<>(all);
    bean.setName("rcrtMcpChecks");
    bean.addServletNames("rcrtMcp");
    bean.setAsyncSupported(true);
    // the JSON-RPC check reads a body without a thread, then serves the request in an ASYNC dispatch
    bean.setDispatcherTypes(jakarta.servlet.DispatcherType.REQUEST, jakarta.servlet.DispatcherType.ASYNC);
    bean.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return bean;
  }
}

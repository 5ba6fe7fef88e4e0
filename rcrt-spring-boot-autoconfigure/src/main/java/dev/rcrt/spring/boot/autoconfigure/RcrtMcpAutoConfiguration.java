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
 * unless every allowed host is a loopback name, and checked before a request's body is read.
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
  McpToolServer.Mounted rcrtMcpServer(ToolRunner runner, RcrtProperties properties) {
    RcrtProperties.Mcp mcp = properties.getMcp();
    try {
      return McpToolServer.builder(runner).serverInfo("rcrt", "0.1.0")
          .servlet(mcp.getPath(), mcp.getAllowedHosts(), mcp.getAllowedOrigins(), mcp.getBearerToken());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("rcrt.mcp: " + e.getMessage() + " (rcrt.mcp.bearer-token), or allow only loopback hosts"
          + " (rcrt.mcp.allowed-hosts)", e);
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
    bean.setOrder(Ordered.HIGHEST_PRECEDENCE);
    return bean;
  }
}

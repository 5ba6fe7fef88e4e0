package dev.rcrt.mcp.internal;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Refuses requests without the bearer token: 401 with {@code WWW-Authenticate: Bearer}, the token
 * compared in constant time.
 */
public final class BearerFilter implements Filter {
  private final byte[] expected;

  public BearerFilter(String token) {
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

package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.core.spi.BoundedBytes;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Reads every POSTed body before the SDK's transport sees it, bounded to {@link #MAX_BODY_BYTES},
 * and answers what is not JSON-RPC the way JSON-RPC 2.0 says, with status 400 and no trace of the
 * server's internals: {@code -32700 Parse error} for text that is not JSON (or repeats a key, or
 * holds a number beyond a double), {@code -32600 Invalid Request} for JSON that is neither an
 * object nor an array, and for a body past the bound (status 413). What passes goes on unchanged.
 */
public final class JsonRpcBodyFilter implements Filter {
  /** The largest body read: 4 MiB. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    if (!"POST".equals(http.getMethod())) {
      chain.doFilter(request, response);
      return;
    }
    byte[] body = BoundedBytes.readAll(http.getInputStream(), MAX_BODY_BYTES);
    HttpServletResponse out = (HttpServletResponse) response;
    if (body == null) {
      refuse(out, 413, -32600, "Invalid Request: the body is larger than " + MAX_BODY_BYTES + " bytes");
      return;
    }
    JsonNode message;
    try {
      message = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
    } catch (ValidationException e) {
      refuse(out, 400, -32700, "Parse error: " + e.getMessage());
      return;
    }
    if (!message.isObject() && !message.isArray()) {
      refuse(out, 400, -32600, "Invalid Request: a JSON-RPC message is an object (or an array of them)");
      return;
    }
    chain.doFilter(new Buffered(http, body), response);
  }


  private static void refuse(HttpServletResponse out, int status, int code, String message) throws IOException {
    ObjectNode answer = RcrtJson.object().put("jsonrpc", "2.0").putNull("id");
    answer.putObject("error").put("code", code).put("message", message);
    out.setStatus(status);
    out.setContentType("application/json");
    out.setCharacterEncoding("UTF-8");
    out.getWriter().write(RcrtJson.write(answer));
  }

  /** The request with its body read again from memory. */
  private static final class Buffered extends HttpServletRequestWrapper {
    private final byte[] body;

    Buffered(HttpServletRequest request, byte[] body) {
      super(request);
      this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
      ByteArrayInputStream in = new ByteArrayInputStream(body);
      return new ServletInputStream() {
        @Override
        public int read() {
          return in.read();
        }

        @Override
        public int read(byte[] b, int off, int len) {
          return in.read(b, off, len);
        }

        @Override
        public boolean isFinished() {
          return in.available() == 0;
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
          throw new IllegalStateException("the body is already read");
        }
      };
    }

    @Override
    public BufferedReader getReader() {
      return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
    }

    @Override
    public int getContentLength() {
      return body.length;
    }

    @Override
    public long getContentLengthLong() {
      return body.length;
    }
  }
}

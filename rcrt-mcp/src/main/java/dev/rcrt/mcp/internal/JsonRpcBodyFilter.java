package dev.rcrt.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rcrt.core.RcrtJson;
import dev.rcrt.core.ValidationException;
import dev.rcrt.http.internal.BodyReader;
import dev.rcrt.http.internal.ErrorBody;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
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
 * Reads every POSTed body before the SDK's transport sees it, bounded to {@link #MAX_BODY_BYTES}
 * and without a thread ({@link BodyReader}: a 408 past {@link #BODY_TIMEOUT}), then serves the
 * request in an {@code ASYNC} dispatch, so this filter must be mapped for {@code REQUEST} and {@code
 * ASYNC} dispatches,
 * and answers what is not JSON-RPC the way JSON-RPC 2.0 says, with status 400 and no trace of the
 * server's internals: {@code -32700 Parse error} for text that is not JSON (or repeats a key, or
 * holds a number beyond a double), {@code -32600 Invalid Request} for JSON that is not an object
 * (MCP has no batches), and for a body past the bound (status 413). What passes goes on unchanged.
 *
 * <p>Every error the transport answers (any method: an unknown or missing session, a wrong {@code
 * Accept}) is rewritten the same way: the MCP SDK serializes its exception, stack trace and class
 * names included, and the servlet container answers {@code sendError} with an HTML page naming
 * itself. Both become a JSON-RPC error, {@code {"jsonrpc": "2.0", "id": null, "error": {code,
 * message, data: {log_ref}}}}, with the SDK's own JSON-RPC code and message (its first line, or
 * a plain one when it names Java types or parser locations) and a reference to the DEBUG log line
 * that keeps the original.
 */
public final class JsonRpcBodyFilter implements Filter {
  /** The largest body read: 4 MiB. */
  static final int MAX_BODY_BYTES = 4 * 1024 * 1024;

  /** How long a client may take to send a body. */
  static final java.time.Duration BODY_TIMEOUT = java.time.Duration.ofSeconds(30);

  /** The request attribute that carries the body read, to the dispatch that serves it. */
  private static final String BODY = JsonRpcBodyFilter.class.getName() + ".body";

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JsonRpcBodyFilter.class);

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    HttpServletResponse out = (HttpServletResponse) response;
    CleanErrors clean = new CleanErrors(out);
    if (!"POST".equals(http.getMethod())) {
      chain.doFilter(request, clean);
      clean.finish();
      return;
    }
    Object read = http.getAttribute(BODY);
    if (read == null) { // the first pass: read the body without a thread, then come back with it (an ASYNC dispatch)
      String tooLarge = "Invalid Request: the body is larger than " + MAX_BODY_BYTES + " bytes";
      BodyReader.start(http, out, "MCP", ErrorBody.JSON_RPC, MAX_BODY_BYTES, tooLarge, BODY_TIMEOUT, bytes -> {
        if (bytes == null) {
          BodyReader.answer(out, ErrorBody.JSON_RPC, 413, tooLarge);
          http.getAsyncContext().complete();
          return;
        }
        http.setAttribute(BODY, bytes);
        http.getAsyncContext().dispatch();
      });
      return;
    }
    byte[] body = (byte[]) read;
    JsonNode message;
    try {
      message = RcrtJson.parse(new String(body, StandardCharsets.UTF_8));
    } catch (ValidationException e) {
      refuse(out, 400, -32700, "Parse error: " + e.getMessage());
      return;
    }
    if (!message.isObject()) { // MCP has had no batches since 2025-06-18, and the SDK reads none
      refuse(out, 400, -32600, "Invalid Request: an MCP message is one JSON-RPC object (batches are not part of MCP)");
      return;
    }
    chain.doFilter(new Buffered(http, body), clean);
    clean.finish();
  }


  /** Answers with status {@code status} and the JSON-RPC error {@code {"jsonrpc": "2.0", "id": null, "error": {code, message}}}. */
  static void refuse(HttpServletResponse out, int status, int code, String message) throws IOException {
    refuse(out, status, code, message, null);
  }

  private static void refuse(HttpServletResponse out, int status, int code, String message, @org.jspecify.annotations.Nullable String ref)
      throws IOException {
    ObjectNode answer = RcrtJson.object().put("jsonrpc", "2.0").putNull("id");
    ObjectNode error = answer.putObject("error").put("code", code).put("message", message);
    if (ref != null) {
      error.putObject("data").put("log_ref", ref);
    }
    out.setStatus(status);
    out.setContentType("application/json");
    out.setCharacterEncoding("UTF-8");
    out.getWriter().write(RcrtJson.write(answer));
  }

  /**
   * The response as the transport writes it, except an error: its body (written once its status is
   * 400 or more) is kept, and {@link #finish} writes the JSON-RPC error it stands for instead.
   */
  private static final class CleanErrors extends jakarta.servlet.http.HttpServletResponseWrapper {
    private final HttpServletResponse out;
    private java.io.@org.jspecify.annotations.Nullable ByteArrayOutputStream kept;
    private java.io.@org.jspecify.annotations.Nullable PrintWriter keptWriter;

    CleanErrors(HttpServletResponse out) {
      super(out);
      this.out = out;
    }

    private java.io.ByteArrayOutputStream keep() {
      if (kept == null) {
        kept = new java.io.ByteArrayOutputStream();
      }
      return kept;
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
      if (out.getStatus() < 400) {
        return super.getOutputStream();
      }
      java.io.ByteArrayOutputStream into = keep();
      return new ServletOutputStream() {
        @Override
        public void write(int b) {
          if (into.size() < MAX_BODY_BYTES) {
            into.write(b);
          }
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(jakarta.servlet.WriteListener listener) {
          throw new IllegalStateException("an error body is written at once");
        }
      };
    }

    @Override
    public java.io.PrintWriter getWriter() throws IOException {
      if (out.getStatus() < 400) {
        return super.getWriter();
      }
      if (keptWriter == null) {
        keptWriter = new java.io.PrintWriter(new java.io.OutputStreamWriter(keep(), StandardCharsets.UTF_8), true);
      }
      return keptWriter;
    }

    @Override
    public void sendError(int status, String message) throws IOException {
      out.setStatus(status);
      keep();
    }

    @Override
    public void sendError(int status) throws IOException {
      sendError(status, "");
    }

    /** Writes the JSON-RPC error for a kept error body; nothing when the response was no error. */
    void finish() throws IOException {
      if (kept == null) {
        return;
      }
      if (keptWriter != null) {
        keptWriter.flush();
      }
      String original = kept.toString(StandardCharsets.UTF_8);
      int status = out.getStatus();
      int code = status == 404 ? -32001 : -32600;
      String message = status == 404 ? "Not found: no such session (it ended, or was never opened); start one with initialize"
          : status == 405 ? "Method not allowed" : "Invalid Request";
      try {
        JsonNode parsed = RcrtJson.parse(original);
        JsonNode rpc = parsed.path("jsonRpcError").isObject() ? parsed.get("jsonRpcError") : parsed.path("error");
        if (rpc.path("message").isTextual()) {
          code = rpc.path("code").asInt(code);
          message = withoutInternals(rpc.get("message").asText(), message);
        }
      } catch (ValidationException notJson) {
        // an HTML page or plain text: the status says enough
      }
      String ref = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
      LOG.debug("MCP transport error {} (status {}), answered as JSON-RPC {}: {}", ref, status, code, original);
      out.resetBuffer();
      refuse(out, status, code, message, ref);
    }
  }

  /** Java names and parser locations in the SDK's messages, which are not the client's business. */
  private static final java.util.regex.Pattern INTERNALS =
      java.util.regex.Pattern.compile("(?:java|javax|jakarta|com|org|io|reactor)\\.[a-z]|Exception|Error\\b|at \\[Source|\\$");

  /** The SDK's {@code message} when it names no Java internals (its first line), else {@code instead}. */
  static String withoutInternals(String message, String instead) {
    String line = message.lines().findFirst().orElse("").strip();
    return line.isEmpty() || INTERNALS.matcher(line).find() ? instead : line;
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

package dev.rcrt.http.internal;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.beans.PropertyChangeListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Loader;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.jspecify.annotations.Nullable;

/**
 * One endpoint of the SDK on HTTP/1.1: a servlet, behind its filters, in an embedded Tomcat (NIO
 * connector) bound to one address. The MCP, A2A and AG-UI servers each own one.
 *
 * <p>What the connector promises, whoever the client is:
 *
 * <ul>
 *   <li>A request's line and headers are read without a thread: a client that sends them slowly
 *       (slowloris) holds one of Tomcat's 8,192 connections, no request thread, and is dropped once
 *       it sends nothing for {@code timeout}.
 *   <li>A body no servlet reads is not drained by a thread either ({@code maxSwallowSize} 0): the
 *       connection is closed after the answer. {@link BodyReader} reads bodies without a thread.
 *   <li>A write of an answer that the client does not take in for {@code timeout} fails, which frees
 *       the thread that wrote it.
 *   <li>Every error Tomcat answers itself (a request it cannot parse, such as a bad {@code
 *       Content-Length} or a request target with a control character; an exception a servlet let
 *       through) is a JSON body from {@link ErrorBody}, with no class name, stack trace or server
 *       version ({@link CleanErrors}).
 * </ul>
 *
 * <p>Tomcat's request threads are its own (200 at most, daemon). Thread-safe; {@link #close} stops
 * listening and removes Tomcat's working directory.
 */
public final class HttpListener implements AutoCloseable {
  private final Tomcat tomcat;
  private final URI base;
  private final Path workDir;

  /**
   * Starts listening.
   *
   * @param what the server, for the error when the address cannot be bound, such as {@code "the MCP server"}
   * @param host the address to bind, such as {@code 127.0.0.1}
   * @param port 0 for a free port
   * @param timeout how long a client may leave a connection idle while it sends a request or takes in an answer; positive
   * @param errors the body of the errors Tomcat answers itself
   * @param servlet what serves every path; asynchronous requests are allowed
   * @param filters to run before the servlet, in order, on {@code REQUEST} and {@code ASYNC} dispatches
   * @throws UncheckedIOException when the address cannot be bound, naming it
   */
  public HttpListener(String what, String host, int port, Duration timeout, ErrorBody errors, HttpServlet servlet, List<Filter> filters) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the timeout must be positive, found " + timeout);
    }
    try {
      workDir = Files.createTempDirectory("rcrt-http-tomcat");
    } catch (IOException e) {
      throw new UncheckedIOException(what + " could not create its working directory: " + e.getMessage(), e);
    }
    tomcat = new Tomcat();
    try {
      tomcat.setBaseDir(workDir.toString());
      Connector connector = new Connector();
      connector.setPort(port);
      connector.setProperty("address", host);
      connector.setProperty("connectionTimeout", Long.toString(timeout.toMillis()));
      connector.setProperty("maxSwallowSize", "0");
      connector.setAsyncTimeout(0); // a request that goes asynchronous sets its own
      tomcat.setConnector(connector);
      StandardHost tomcatHost = (StandardHost) tomcat.getHost();
      tomcatHost.setAutoDeploy(false);
      tomcatHost.getPipeline().addValve(new CleanErrors(errors));
      tomcatHost.setErrorReportValveClass(CleanErrors.class.getName()); // found in the pipeline: Tomcat adds no page of its own
      Context context = tomcat.addContext("", workDir.toString());
      context.setLoader(new SdkLoader());
      Wrapper wrapper = Tomcat.addServlet(context, "endpoint", servlet);
      wrapper.setAsyncSupported(true);
      context.addServletMappingDecoded("/*", "endpoint");
      for (int i = 0; i < filters.size(); i++) {
        filter(context, "filter-" + i, filters.get(i));
      }
      tomcat.start();
      if (connector.getLocalPort() < 0) { // Tomcat logs a bind failure and goes on without the connector
        throw new IOException("the address is in use or cannot be bound");
      }
      String shown = host.contains(":") ? "[" + host + "]" : host;
      base = URI.create("http://" + shown + ":" + connector.getLocalPort());
      // Tomcat needs its directories only to start (the context's document base and work directory have to exist then);
      // the servlet serves every path from memory and nothing writes files, so they go now: a process killed from here on
      // (SIGKILL, the OOM killer, a container stop) leaves nothing under java.io.tmpdir
      deleteWorkDir();
    } catch (IOException | LifecycleException | RuntimeException e) {
      close();
      throw new UncheckedIOException(what + " could not listen on " + host + ":" + port + ": " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e.getMessage(), e));
    }
  }

  /**
   * The context's class loader: the SDK's own. Tomcat's default (a web application's class loader)
   * would be the context class loader of every thread a request starts, such as an agent's, and
   * Tomcat warns of each such thread as a leak when the listener stops.
   */
  private static final class SdkLoader implements Loader {
    private @Nullable Context context;

    @Override
    public void backgroundProcess() {}

    @Override
    public ClassLoader getClassLoader() {
      return HttpListener.class.getClassLoader();
    }

    @Override
    public @Nullable Context getContext() {
      return context;
    }

    @Override
    public void setContext(@Nullable Context context) {
      this.context = context;
    }

    @Override
    public boolean getDelegate() {
      return true;
    }

    @Override
    public void setDelegate(boolean delegate) {}

    @Override
    public void addPropertyChangeListener(PropertyChangeListener listener) {}

    @Override
    public boolean modified() {
      return false;
    }

    @Override
    public void removePropertyChangeListener(PropertyChangeListener listener) {}
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
    map.setDispatcher(jakarta.servlet.DispatcherType.REQUEST.name()); // and the dispatches of a request gone asynchronous, such
    map.setDispatcher(jakarta.servlet.DispatcherType.ASYNC.name()); // as one whose body was read without a thread
    context.addFilterMap(map);
  }

  /** Where clients connect, such as {@code http://127.0.0.1:8808}: no path, no trailing slash. */
  public URI base() {
    return base;
  }

  /** Stops listening (requests under way are cut); removes Tomcat's working directory if a failed start left it. Idempotent. */
  @Override
  public void close() {
    try {
      tomcat.stop();
      tomcat.destroy();
    } catch (LifecycleException e) {
      // stopping anyway
    }
    deleteWorkDir();
  }

  /** Removes Tomcat's directories, if they are still there. */
  private void deleteWorkDir() {
    if (!Files.exists(workDir)) {
      return;
    }
    try (var files = Files.walk(workDir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory left behind is harmless
    }
  }

  /** Tomcat's directory under {@code java.io.tmpdir}: there only while the listener starts (for tests). */
  Path workDir() {
    return workDir;
  }
}

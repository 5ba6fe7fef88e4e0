package dev.rcrt.benchmarks;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that counts the statements executed through it (every {@code execute…} call on a
 * statement it hands out, commits and rollbacks apart): how many round trips to PostgreSQL a piece
 * of work costs.
 */
final class CountingDataSource implements DataSource {
  private final DataSource delegate;
  final LongAdder statements = new LongAdder();

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection c) {
    InvocationHandler h = (proxy, method, args) -> {
      Object result = invoke(c, method, args);
      return result instanceof Statement s && !method.getName().equals("unwrap") ? countingStatement(s, method.getReturnType()) : result;
    };
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  private Object countingStatement(Statement s, Class<?> type) {
    InvocationHandler h = (proxy, method, args) -> {
      if (method.getName().startsWith("execute")) {
        statements.increment();
      }
      return invoke(s, method, args);
    };
    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}

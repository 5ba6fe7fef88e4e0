/**
 * RCRT core: breadcrumbs, selectors, stores, views and file loading ({@link dev.rcrt.core}), and
 * what the SDK's other modules and a host's own store or runtime share ({@link dev.rcrt.core.spi}).
 * Its implementation ({@code dev.rcrt.core.internal}) is exported to no one.
 */
module dev.rcrt.core {
  requires transitive com.fasterxml.jackson.databind;
  requires transitive java.net.http;
  requires transitive org.jspecify;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires com.github.jknack.handlebars;
  requires everit.json.schema;
  requires jackson.jq;
  requires json.path;
  requires org.json;
  requires org.slf4j;

  exports dev.rcrt.core;
  exports dev.rcrt.core.spi;

  // Jackson reads and writes the wire records (Breadcrumb, BreadcrumbCreate, Selector, ...)
  opens dev.rcrt.core to com.fasterxml.jackson.databind;
}

/** A running RCRT server's REST API as a {@link dev.rcrt.core.BreadcrumbStore}. */
module dev.rcrt.serverstore {
  requires transitive dev.rcrt.core;
  requires org.slf4j;

  exports dev.rcrt.serverstore;
}

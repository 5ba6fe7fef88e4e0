/**
 * The HTTP serving the SDK's endpoints share, not API: an embedded Tomcat (NIO) that reads request
 * heads and bodies without holding a thread, answers every error it raises itself as JSON with no
 * trace of the server, and the request gate, rate and settings of the A2A and AG-UI servers.
 */
module dev.rcrt.http {
  requires transitive dev.rcrt.core;
  requires transitive org.apache.tomcat.embed.core;
  requires io.github.bucket4j.core;
  requires com.github.benmanes.caffeine;
  requires org.slf4j;
  requires java.desktop; // java.beans.PropertyChangeListener, in Tomcat's Loader

  exports dev.rcrt.http.internal to dev.rcrt.mcp, dev.rcrt.a2a, dev.rcrt.agui;
}

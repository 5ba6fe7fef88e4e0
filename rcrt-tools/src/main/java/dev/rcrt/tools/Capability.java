package dev.rcrt.tools;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Something a tool record can make the runtime do beyond computing, which the host must allow
 * through its {@link ToolTrustPolicy}: run a container image, load a jar, open a connection.
 */
public sealed interface Capability {

  /**
   * Run a {@code container} tool from {@code image} (as written in the tool record, e.g. {@code
   * ghcr.io/acme/search:1.2}).
   */
  record ContainerImage(String image) implements Capability {
    /** Validates. */
    public ContainerImage {
      Objects.requireNonNull(image, "image");
    }
  }

  /**
   * Load a {@code module} tool's jar from {@code location}: a path (made absolute and normalised)
   * or a URL, as the record names it. Modules the host registered or put on the classpath need no
   * capability.
   */
  record ModuleJar(String location) implements Capability {
    /** Validates. */
    public ModuleJar {
      Objects.requireNonNull(location, "location");
    }
  }

  /**
   * Start {@code program} (the first word of a command a tool record names, such as the command
   * of an MCP server: {@code npx}, {@code /opt/tools/server}) as a child process of the host.
   */
  record StartProcess(String program) implements Capability {
    /** Validates. */
    public StartProcess {
      Objects.requireNonNull(program, "program");
    }
  }

  /**
   * Connect to {@code address} (what {@code host} resolved to) on {@code port}, for an {@code http}
   * tool or a JavaScript {@code fetch}. Asked once for every address the name resolves to; one
   * refusal refuses the call.
   */
  record Connect(String host, InetAddress address, int port) implements Capability {
    /** Validates. */
    public Connect {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(address, "address");
    }
  }
}

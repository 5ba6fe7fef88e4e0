/** The {@code container} implementation type: tools in Docker containers ({@link dev.rcrt.tools.docker.DockerRuntime}). */
module dev.rcrt.tools.docker {
  requires transitive dev.rcrt.tools;
  requires com.github.dockerjava.api;
  requires com.github.dockerjava.core;
  requires com.github.dockerjava.transport;
  requires com.github.dockerjava.transport.zerodep;
  requires org.slf4j;

  exports dev.rcrt.tools.docker;

  provides dev.rcrt.tools.ToolRuntime with dev.rcrt.tools.docker.DockerRuntime;
}

package dev.rcrt.tools.docker.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import java.util.List;

/**
 * The container limits a definition allows: memory ({@code memory_mb}, also read from {@code
 * limits.memory_mb}), process count ({@code pids_limit}, default 64), a read-only root ({@code
 * read_only}, default true), every capability dropped, {@code no-new-privileges}, and no network
 * for stdio containers unless {@code network: true}.
 */
record Hardening(long memoryBytes, long pidsLimit, boolean readOnly, boolean network) {
  static Hardening of(JsonNode spec, JsonNode limits) {
    long memoryMb = spec.path("memory_mb").asLong(limits.path("memory_mb").asLong(0));
    return new Hardening(
        memoryMb * 1024 * 1024,
        spec.path("pids_limit").asLong(64),
        spec.path("read_only").asBoolean(true),
        spec.path("network").asBoolean(false));
  }

  /** Applies the limits; {@code withNetwork} false detaches the container from every network. */
  HostConfig apply(HostConfig config, boolean withNetwork) {
    HostConfig out =
        config
            .withPidsLimit(pidsLimit)
            .withReadonlyRootfs(readOnly)
            .withCapDrop(Capability.ALL)
            .withSecurityOpts(List.of("no-new-privileges"));
    if (memoryBytes > 0) {
      out = out.withMemory(memoryBytes);
    }
    return withNetwork ? out : out.withNetworkMode("none");
  }
}

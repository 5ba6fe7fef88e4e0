package dev.rcrt.tools;

import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Principal;
import dev.rcrt.tools.internal.trust.AddressRules;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Decides what records may cause. Tools are breadcrumbs, so whoever can write a breadcrumb could
 * otherwise write a tool; every {@link ToolRunner} path asks this policy before data becomes
 * behaviour:
 *
 * <ul>
 *   <li><b>Records that become behaviour</b> ({@link #PROTECTED_SCHEMAS}: tool records, {@code
 *       tool.config.v1}, agent definitions, {@code schema.def.v1}, and the code breadcrumbs
 *       JavaScript tools point at) take effect only if {@link #trusts} their last writer ({@link
 *       Principal#writerOf}). An untrusted tool is neither offered to a model nor run; an untrusted
 *       config is ignored with a logged warning. A writer the policy does not trust cannot write
 *       such records through a tool either: {@code breadcrumb-create} and {@code
 *       context.api.createBreadcrumb} refuse them with an error the model can read.
 *   <li><b>Requests</b>: a {@code tool.request.v1} runs only if {@link #mayRequest} accepts its
 *       writer; a refused one gets an error response that says why.
 *   <li><b>Capabilities</b> a tool record asks for ({@link Capability}) run only if {@link
 *       #allows} them.
 * </ul>
 *
 * <p>{@link #defaults()} trusts the host only, lets the host and agents request tools, and allows
 * no container image, no program to start, no jar outside the host's list and no connection to a loopback, link-local,
 * private, unique-local, multicast or unspecified address. {@link #permissive()} restores the
 * original RCRT's everything-goes behaviour, for closed deployments only. Implementations must be
 * thread-safe and fast (they are asked on every call).
 */
public interface ToolTrustPolicy {

  /**
   * The schemas of records that become behaviour: tools ({@link ToolDefinition#TOOL_SCHEMAS}),
   * tool configurations, agent definitions, schema definitions, and {@code tool.transpiled.v1}
   * (the JavaScript a runtime keeps for a TypeScript source, which runs in its place).
   */
  Set<String> PROTECTED_SCHEMAS =
      Set.of(
          "tool.code.v1", "tool.v1", "tool.definition.v1", "tool.config.v1",
          "agent.def.v1", "agent.definition.v1", "schema.def.v1", "tool.transpiled.v1");

  /**
   * The schemas of the conversation and its audit trail, the records the agent loop and the runner
   * write and replay sessions from: {@code user.message.v1}, {@code tool.request.v1}, {@code
   * tool.response.v1} and {@code agent.response.v1}. Append-only for every principal but the host:
   * a tool may create them (a workflow's requests) but never update or delete one, whatever the
   * policy says.
   */
  Set<String> APPEND_ONLY_SCHEMAS = Set.of("user.message.v1", "tool.request.v1", "tool.response.v1", "agent.response.v1");

  /**
   * Whether a record of {@code schemaName} whose last writer is {@code writer} may take effect
   * (and whether {@code writer} may write one through a tool).
   */
  boolean trusts(Principal writer, String schemaName);

  /**
   * Whether the running tool {@code tool} may update or delete {@code record}, which another
   * principal created. A tool may always change the records it created itself (the same {@code
   * tool:<name>}); {@link #APPEND_ONLY_SCHEMAS} records no tool may change, and {@link
   * #PROTECTED_SCHEMAS} records only a writer this policy {@link #trusts}; this decides the rest.
   * Default: no, so a tool cannot rewrite another caller's results or erase the host's records;
   * {@link Builder#allowChanges} grants more, {@link #permissive()} everything.
   */
  default boolean mayChange(Principal tool, Breadcrumb record) {
    return false;
  }

  /**
   * Why {@code record}, one that would become behaviour (a tool, a tool config, an agent
   * definition, the code a tool points at), may not take effect, in one line, or null if it may.
   * The default asks {@link #trusts} about its last writer; a policy built with {@link
   * Builder#requireSignatures} asks for a valid signature by a trusted publisher key instead.
   */
  default @Nullable String whyUntrusted(Breadcrumb record) {
    Principal writer = Principal.writerOf(record);
    return trusts(writer, String.valueOf(record.schemaName())) ? null : "it was last written by " + writer.wire() + ", whom the trust policy does not trust";
  }

  /** Whether a {@code tool.request.v1} written by (or a call made for) {@code requester} may run. */
  boolean mayRequest(Principal requester, ToolDefinition tool);

  /** Whether a tool may use {@code capability}. */
  boolean allows(Capability capability);

  /**
   * What a refusal of {@code capability} tells its reader to do to allow it. By default the builder
   * call, such as {@code ToolTrustPolicy.builder().allowNetwork("10.0.0.5/32")}; a policy built with
   * {@link Builder#howToAllow} says it in its own terms (the command line names its flags, such as
   * {@code --allow-network 10.0.0.5/32}).
   */
  default String howToAllow(Capability capability) {
    return Builder.builderCall(capability);
  }

  /** The safe default; see the class comment. Same as {@code builder().build()}. */
  static ToolTrustPolicy defaults() {
    return builder().build();
  }

  /**
   * <b>Unsafe</b>: trusts every writer, runs every request, allows every capability, as the
   * original RCRT does. A model can then create tools for itself, a tool can grant itself secrets,
   * and anyone who writes a breadcrumb can run code on the host. Use only where every writer of the
   * store is trusted.
   */
  static ToolTrustPolicy permissive() {
    return Builder.PERMISSIVE;
  }

  /** A builder starting from {@link #defaults()}. */
  static Builder builder() {
    return new Builder();
  }

  /** Builder for the default policy with host-chosen allowances. Not thread-safe. */
  final class Builder {
    private Predicate<Principal> trustedWriters = Principal::isHost;
    private BiPredicate<Principal, Breadcrumb> changes = (tool, record) -> false;
    private Predicate<Principal> requesters = p -> p.isHost() || p.kind() == Principal.Kind.AGENT;
    private final List<String> images = new ArrayList<>();
    private final List<String> commands = new ArrayList<>();
    private final List<String> moduleLocations = new ArrayList<>();
    private final List<String> networks = new ArrayList<>();
    private @Nullable List<PublicKey> publishers;
    private java.util.function.Function<Capability, String> howToAllow = Builder::builderCall;

    private Builder() {}

    /**
     * For stores that many processes write to, where the writer fields are only a claim: records
     * that become behaviour take effect only when signed ({@link RecordSignatures}) by one of
     * {@code publisherKeys}, whoever wrote them; unsigned, tampered or otherwise-signed ones are
     * neither offered nor run, with a one-line reason. Writes through a tool are still judged by
     * {@link #trustedWriters}.
     */
    public Builder requireSignatures(PublicKey... publisherKeys) {
      if (publisherKeys.length == 0) {
        throw new IllegalArgumentException("requireSignatures needs at least one publisher key");
      }
      this.publishers = List.of(publisherKeys);
      return this;
    }

    /** Whose protected records take effect; default the host only. */
    public Builder trustedWriters(Predicate<Principal> writers) {
      this.trustedWriters = Objects.requireNonNull(writers, "writers");
      return this;
    }

    /**
     * Which records, created by another principal, a running tool may update or delete besides
     * its own ({@link ToolTrustPolicy#mayChange}); default none. Append-only and protected records
     * stay refused whatever {@code rule} says. Rules add up.
     */
    public Builder allowChanges(BiPredicate<Principal, Breadcrumb> rule) {
      Objects.requireNonNull(rule, "rule");
      BiPredicate<Principal, Breadcrumb> before = changes;
      this.changes = (tool, record) -> before.test(tool, record) || rule.test(tool, record);
      return this;
    }

    /** Whose tool requests run; default the host and agents (never tools). */
    public Builder requesters(Predicate<Principal> requesters) {
      this.requesters = Objects.requireNonNull(requesters, "requesters");
      return this;
    }

    /**
     * Also lets the tools named {@code names} request tools (write {@code tool.request.v1} records
     * that run), as an orchestrator such as RCRT's workflow does; the host and agents still may.
     * Replaces what {@link #requesters} set. No tool may by default.
     */
    public Builder allowRequesterTools(String... names) {
      List<Principal> tools = Arrays.stream(names).map(Principal::tool).toList();
      return requesters(p -> p.isHost() || p.kind() == Principal.Kind.AGENT || tools.contains(p));
    }

    /**
     * Container images tools may run, as patterns where {@code *} matches any run of characters
     * ({@code ghcr.io/acme/*}, {@code busybox:1.*}); default none.
     */
    public Builder allowImages(String... patterns) {
      for (String p : patterns) {
        images.add(Objects.requireNonNull(p, "pattern"));
      }
      return this;
    }

    /**
     * Lets tool records start programs matching {@code patterns} ({@code *} matches anything; the
     * program as the record writes it, e.g. {@code npx} or {@code /opt/mcp/*}): MCP servers run as
     * child processes. None by default.
     */
    public Builder allowCommands(String... patterns) {
      commands.addAll(List.of(patterns));
      return this;
    }

    /** A directory (or single jar) from which {@code module} tools may load jars; default none. */
    public Builder allowModuleLocation(Path location) {
      moduleLocations.add(location.toAbsolutePath().normalize().toString());
      return this;
    }

    /**
     * A network, in CIDR notation ({@code 127.0.0.0/8}, {@code 10.1.0.0/16}, {@code ::1/128}),
     * that HTTP tools and {@code fetch} may reach although it is loopback, link-local, private or
     * otherwise internal. Public addresses need no allowance.
     *
     * @throws IllegalArgumentException if {@code cidr} is not an address with a prefix length
     */
    public Builder allowNetwork(String cidr) {
      AddressRules.Cidr.parse(cidr);
      networks.add(cidr);
      return this;
    }

    /**
     * How refusals say to allow a capability ({@link ToolTrustPolicy#howToAllow}); default the
     * builder call. An application that exposes the allowances as its own settings names them here,
     * as the command line names its {@code --allow-*} flags.
     */
    public Builder howToAllow(java.util.function.Function<Capability, String> advice) {
      this.howToAllow = Objects.requireNonNull(advice, "advice");
      return this;
    }

    /**
     * Advice for {@link #howToAllow} in a host's own terms: the switch that allows each kind of
     * capability, {@code separator}, then the value to give it (the address range, the image, the
     * program, the module directory). The command line uses {@code switches("--allow-network",
     * "--allow-image", "--allow-command", "--allow-module-dir", " ")}; the Spring Boot starter its
     * {@code rcrt.trust.*} properties with {@code "="}.
     */
    public static java.util.function.Function<Capability, String> switches(
        String network, String image, String command, String moduleDir, String separator) {
      return capability -> {
        if (capability instanceof Capability.ContainerImage c) {
          return image + separator + c.image();
        }
        if (capability instanceof Capability.ModuleJar m) {
          return moduleDir + separator + directoryOf(m.location());
        }
        if (capability instanceof Capability.StartProcess p) {
          return command + separator + p.program();
        }
        return network + separator + hostRange((Capability.Connect) capability);
      };
    }

    /** The builder call that allows {@code capability}. */
    static String builderCall(Capability capability) {
      if (capability instanceof Capability.ContainerImage c) {
        return "ToolTrustPolicy.builder().allowImages(\"" + c.image() + "\")";
      }
      if (capability instanceof Capability.ModuleJar m) {
        return "ToolTrustPolicy.builder().allowModuleLocation(Path.of(\"" + directoryOf(m.location()) + "\"))";
      }
      if (capability instanceof Capability.StartProcess p) {
        return "ToolTrustPolicy.builder().allowCommands(\"" + p.program() + "\")";
      }
      return "ToolTrustPolicy.builder().allowNetwork(\"" + hostRange((Capability.Connect) capability) + "\")";
    }

    /** The one-address range of a connection's address: {@code a.b.c.d/32} or {@code …/128}. */
    static String hostRange(Capability.Connect connect) {
      return connect.address().getHostAddress() + (connect.address().getAddress().length == 4 ? "/32" : "/128");
    }

    /** The directory a module jar's location names (the location itself when it has none). */
    static String directoryOf(String location) {
      int slash = Math.max(location.lastIndexOf('/'), location.lastIndexOf('\\'));
      return slash > 0 ? location.substring(0, slash) : location;
    }

    /** The policy, with what was allowed. */
    public ToolTrustPolicy build() {
      return new Policy(this);
    }

    private static final ToolTrustPolicy PERMISSIVE =
        new ToolTrustPolicy() {
          @Override
          public boolean trusts(Principal writer, String schemaName) {
            return true;
          }

          @Override
          public boolean mayRequest(Principal requester, ToolDefinition tool) {
            return true;
          }

          @Override
          public boolean mayChange(Principal tool, Breadcrumb record) {
            return true;
          }

          @Override
          public boolean allows(Capability capability) {
            return true;
          }

          @Override
          public String toString() {
            return "ToolTrustPolicy.permissive()";
          }
        };

    /** The policy a builder makes; immutable. */
    private static final class Policy implements ToolTrustPolicy {
      private final Predicate<Principal> trustedWriters;
      private final Predicate<Principal> requesters;
      private final BiPredicate<Principal, Breadcrumb> changes;
      private final List<Pattern> images;
      private final List<Pattern> commands;
      private final List<String> moduleLocations;
      private final List<AddressRules.Cidr> networks;
      private final @Nullable List<PublicKey> publishers;
      private final java.util.function.Function<Capability, String> howToAllow;

      Policy(Builder b) {
        this.publishers = b.publishers;
        this.howToAllow = b.howToAllow;
        this.trustedWriters = b.trustedWriters;
        this.requesters = b.requesters;
        this.changes = b.changes;
        this.images = b.images.stream().map(AddressRules::glob).toList();
        this.commands = b.commands.stream().map(AddressRules::glob).toList();
        this.moduleLocations = List.copyOf(b.moduleLocations);
        this.networks = b.networks.stream().map(AddressRules.Cidr::parse).toList();
      }

      @Override
      public boolean trusts(Principal writer, String schemaName) {
        return trustedWriters.test(writer);
      }

      @Override
      public @Nullable String whyUntrusted(Breadcrumb record) {
        if (publishers == null) {
          return ToolTrustPolicy.super.whyUntrusted(record);
        }
        return RecordSignatures.problem(record.schemaName(), record.context(), publishers);
      }

      @Override
      public boolean mayRequest(Principal requester, ToolDefinition tool) {
        return requesters.test(requester);
      }

      @Override
      public String howToAllow(Capability capability) {
        return howToAllow.apply(capability);
      }

      @Override
      public boolean mayChange(Principal tool, Breadcrumb record) {
        return changes.test(tool, record);
      }

      @Override
      public boolean allows(Capability capability) {
        if (capability instanceof Capability.ContainerImage c) {
          return images.stream().anyMatch(p -> p.matcher(c.image()).matches());
        }
        if (capability instanceof Capability.ModuleJar m) {
          return moduleAllowed(m.location());
        }
        if (capability instanceof Capability.StartProcess p) {
          return commands.stream().anyMatch(c -> c.matcher(p.program()).matches());
        }
        Capability.Connect connect = (Capability.Connect) capability;
        return AddressRules.isPublic(connect.address()) || networks.stream().anyMatch(n -> n.contains(connect.address()));
      }

      /** A jar path (or {@code file:} URL) inside a listed location; remote URLs never. */
      private boolean moduleAllowed(String location) {
        Path path;
        try {
          path = location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
        } catch (RuntimeException e) {
          return false;
        }
        String normal = path.toAbsolutePath().normalize().toString();
        return moduleLocations.stream()
            .anyMatch(dir -> normal.equals(dir) || normal.startsWith(dir.endsWith("/") ? dir : dir + "/"));
      }

      @Override
      public String toString() {
        return "ToolTrustPolicy[images=" + images + ", commands=" + commands + ", moduleLocations=" + moduleLocations + ", networks=" + networks + "]";
      }
    }
  }
}

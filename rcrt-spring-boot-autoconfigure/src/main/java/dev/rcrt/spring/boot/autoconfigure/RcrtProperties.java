package dev.rcrt.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code rcrt.*} configuration properties: the model endpoint, the store, the breadcrumbs loaded
 * at start, the trust policy and the agent. Every property has a default that runs: with none set,
 * the application gets an in-memory store with the SDK's builtin tools and its default chat agent,
 * and no model client (set {@code rcrt.model.base-url} or define a LangChain4j {@code ChatModel}
 * bean for one).
 *
 * <p>Bound by Spring Boot once at start; not meant to be changed afterwards.
 */
@ConfigurationProperties("rcrt")
public class RcrtProperties {
  private final Model model = new Model();
  private final Store store = new Store();
  private final Breadcrumbs breadcrumbs = new Breadcrumbs();
  private final Trust trust = new Trust();
  private final Agent agent = new Agent();
  private final Mcp mcp = new Mcp();
  private final A2a a2a = new A2a();
  private final Agui agui = new Agui();

  /** Properties at their defaults; Spring Boot binds {@code rcrt.*} onto them. */
  public RcrtProperties() {}

  /** The model endpoint ({@code rcrt.model.*}). */
  public Model getModel() {
    return model;
  }

  /** The store ({@code rcrt.store.*}). */
  public Store getStore() {
    return store;
  }

  /** The breadcrumbs loaded at start ({@code rcrt.breadcrumbs.*}). */
  public Breadcrumbs getBreadcrumbs() {
    return breadcrumbs;
  }

  /** The trust policy ({@code rcrt.trust.*}). */
  public Trust getTrust() {
    return trust;
  }

  /** The agent the application runs ({@code rcrt.agent.*}). */
  public Agent getAgent() {
    return agent;
  }

  /** The MCP endpoint on the application's own web server ({@code rcrt.mcp.*}). */
  public Mcp getMcp() {
    return mcp;
  }

  /** The A2A server for the store's agents ({@code rcrt.a2a.*}). */
  public A2a getA2a() {
    return a2a;
  }

  /** The AG-UI endpoint and console for the store's agents ({@code rcrt.agui.*}). */
  public Agui getAgui() {
    return agui;
  }

  /**
   * A listener of its own (an embedded Tomcat of the SDK's, not the application's server) serving the store's agent
   * records: what the A2A and AG-UI listeners share.
   */
  public abstract static class Listener {
    /** The address the listener binds; any other than a loopback one needs a bearer token. */
    private String host = "127.0.0.1";

    /** The bearer token clients must send; required unless the host is a loopback address. Kept out of logs and errors. */
    private @Nullable String bearerToken;

    /** Origin headers accepted from browsers, such as https://app.example.com; a request without an Origin passes. */
    private List<String> allowedOrigins = new ArrayList<>();

    /** The agent ids to serve; empty for every agent record the host wrote. */
    private List<String> agents = new ArrayList<>();

    /**
     * Whether the listener also serves its agents' runs from the store, so that servers sharing a
     * store take over each other's runs after a crash; default: when the store is not in memory.
     */
    private @Nullable Boolean serveRuns;

    /** At its defaults. */
    Listener() {}

    public String getHost() {
      return host;
    }

    public void setHost(String host) {
      this.host = host;
    }

    public @Nullable String getBearerToken() {
      return bearerToken;
    }

    public void setBearerToken(@Nullable String bearerToken) {
      this.bearerToken = bearerToken;
    }

    public List<String> getAllowedOrigins() {
      return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
      this.allowedOrigins = allowedOrigins;
    }

    public List<String> getAgents() {
      return agents;
    }

    public void setAgents(List<String> agents) {
      this.agents = agents;
    }

    public @Nullable Boolean getServeRuns() {
      return serveRuns;
    }

    public void setServeRuns(@Nullable Boolean serveRuns) {
      this.serveRuns = serveRuns;
    }

    /** Whether the listener serves its agents' runs on {@code store}: as set, else when the store is not in memory. */
    boolean servesRuns(dev.rcrt.core.BreadcrumbStore store) {
      return serveRuns != null ? serveRuns : !(store instanceof dev.rcrt.core.InMemoryBreadcrumbStore);
    }
  }

  /**
   * The store's agent records served to front-ends over AG-UI, and the console, on a listener of
   * their own (port 8810 by default), with {@code rcrt-agui} on the class path.
   */
  public static class Agui extends Listener {
    /** At its defaults. */
    public Agui() {}

    /** The listener's port; 0 for any free port. */
    private int port = 8810;

    /** Whether to serve the agents over AG-UI at /agui/ID. */
    private boolean enabled = false;

    /** Whether to serve the console at / as well. */
    private boolean console = false;

    /** Who may decide waiting calls in the console (written as user:NAME and added to the runner's approvers); empty: it decides nothing. */
    private List<String> approvers = new ArrayList<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isConsole() {
      return console;
    }

    public void setConsole(boolean console) {
      this.console = console;
    }

    public List<String> getApprovers() {
      return approvers;
    }

    public void setApprovers(List<String> approvers) {
      this.approvers = approvers;
    }

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }
  }

  /**
   * The store's agent records served over A2A on a listener of their own (port 8809 by default; the
   * A2A endpoint runs on an embedded Tomcat of its own, not the application's server), with {@code rcrt-a2a} on the
   * class path.
   */
  public static class A2a extends Listener {
    /** At its defaults. */
    public A2a() {}

    /** The A2A listener's port; 0 for any free port. */
    private int port = 8809;

    /** Whether to serve the agents over A2A. */
    private boolean enabled = false;

    /** The URL clients reach the listener at, for the Agent Cards (behind a proxy); default http://HOST:PORT. */
    private @Nullable String publicUrl;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable String getPublicUrl() {
      return publicUrl;
    }

    public void setPublicUrl(@Nullable String publicUrl) {
      this.publicUrl = publicUrl;
    }

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }
  }

  /**
   * The tool runner's tools served over MCP (streamable HTTP) on the application's own servlet web
   * server, with {@code rcrt-mcp} on the class path.
   */
  public static class Mcp {
    /** At its defaults. */
    public Mcp() {}

    /** Whether to serve MCP at rcrt.mcp.path. */
    private boolean enabled = false;

    /** The endpoint's path. */
    private String path = "/mcp";

    /**
     * The bearer token MCP clients must send; required unless every allowed host is a loopback name.
     * Kept out of logs and errors.
     */
    private @Nullable String bearerToken;

    /** Host header patterns the endpoint answers (DNS-rebinding protection), such as mcp.example.com or localhost:*. */
    private List<String> allowedHosts = new ArrayList<>(List.of("localhost:*", "127.0.0.1:*", "[::1]:*"));

    /** Origin header patterns accepted from browsers; a request without an Origin passes. */
    private List<String> allowedOrigins = new ArrayList<>(List.of("http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"));

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

    public @Nullable String getBearerToken() {
      return bearerToken;
    }

    public void setBearerToken(@Nullable String bearerToken) {
      this.bearerToken = bearerToken;
    }

    public List<String> getAllowedHosts() {
      return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
      this.allowedHosts = allowedHosts;
    }

    public List<String> getAllowedOrigins() {
      return allowedOrigins;
    }

    public void setAllowedOrigins(List<String> allowedOrigins) {
      this.allowedOrigins = allowedOrigins;
    }
  }

  /** An OpenAI-compatible chat-completions endpoint, used when the application defines no model client of its own. */
  public static class Model {
    /** At its defaults. */
    public Model() {}

    /**
     * OpenAI-compatible API base, such as https://api.openai.com/v1, https://openrouter.ai/api/v1 or
     * http://localhost:11434/v1. Without it (and without a LangChain4j ChatModel bean) no model
     * client and no agent executor are configured.
     */
    private @Nullable String baseUrl;

    /** API key sent as a bearer token. Kept out of every record, log line and error. */
    private @Nullable String apiKey;

    /** Model id used when the agent definition names none. */
    private @Nullable String model;

    /** Time limit of one request to the endpoint. */
    private Duration requestTimeout = Duration.ofMinutes(2);

    /** Retries of a request that failed with a retriable status (429, 5xx) or an I/O error. */
    private int maxRetries = 2;

    /** Extra HTTP headers sent with every request, such as OpenRouter's HTTP-Referer. */
    private Map<String, String> headers = new LinkedHashMap<>();

    public @Nullable String getBaseUrl() {
      return baseUrl;
    }

    public void setBaseUrl(@Nullable String baseUrl) {
      this.baseUrl = baseUrl;
    }

    public @Nullable String getApiKey() {
      return apiKey;
    }

    public void setApiKey(@Nullable String apiKey) {
      this.apiKey = apiKey;
    }

    public @Nullable String getModel() {
      return model;
    }

    public void setModel(@Nullable String model) {
      this.model = model;
    }

    public Duration getRequestTimeout() {
      return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
    }

    public int getMaxRetries() {
      return maxRetries;
    }

    public void setMaxRetries(int maxRetries) {
      this.maxRetries = maxRetries;
    }

    public Map<String, String> getHeaders() {
      return headers;
    }

    public void setHeaders(Map<String, String> headers) {
      this.headers = headers;
    }
  }

  /** Which store keeps the breadcrumbs, when the application defines no {@code BreadcrumbStore} bean. */
  public static class Store {
    /** At its defaults. */
    public Store() {}

    /**
     * auto: PostgreSQL through the application's DataSource when rcrt-postgres is on the classpath
     * and a DataSource bean exists, else in memory; postgres: PostgreSQL or fail at start; memory:
     * in memory (lost when the application stops).
     */
    private StoreType type = StoreType.AUTO;

    /** PostgreSQL schema the store's tables live in (created and migrated at start). */
    private String schema = "rcrt";

    public StoreType getType() {
      return type;
    }

    public void setType(StoreType type) {
      this.type = type;
    }

    public String getSchema() {
      return schema;
    }

    public void setSchema(String schema) {
      this.schema = schema;
    }
  }

  /** The store kinds of {@code rcrt.store.type}. */
  public enum StoreType {
    /** PostgreSQL when it can be, else memory. */
    AUTO,
    /** In memory. */
    MEMORY,
    /** PostgreSQL through the application's DataSource. */
    POSTGRES
  }

  /** Breadcrumbs written to the store as the host at start; records that are there unchanged are not written again. */
  public static class Breadcrumbs {
    /** At its defaults. */
    public Breadcrumbs() {}

    /**
     * Resource locations of breadcrumb files (a JSON record or an array of records),
     * such as classpath:breadcrumbs/*.json or file:/etc/rcrt/tools/*.json. Patterns are resolved
     * with Spring's resource loader, so they work from a fat jar too.
     */
    private List<String> locations = new ArrayList<>();

    /** Whether the SDK's builtin tools (calculator, breadcrumb-search, ...) and default chat agent are written too. */
    private boolean seedBuiltins = true;

    /** Whether a location that does not load stops the application (true) or is logged and skipped (false). */
    private boolean failOnError = true;

    public List<String> getLocations() {
      return locations;
    }

    public void setLocations(List<String> locations) {
      this.locations = locations;
    }

    public boolean isSeedBuiltins() {
      return seedBuiltins;
    }

    public void setSeedBuiltins(boolean seedBuiltins) {
      this.seedBuiltins = seedBuiltins;
    }

    public boolean isFailOnError() {
      return failOnError;
    }

    public void setFailOnError(boolean failOnError) {
      this.failOnError = failOnError;
    }
  }

  /**
   * What the default trust policy refuses unless allowed: the same switches as the CLI's {@code
   * --allow-*} options. Used when the application defines no {@code ToolTrustPolicy} bean.
   */
  public static class Trust {
    /** At its defaults. */
    public Trust() {}

    /** Internal networks (CIDR) HTTP tools and fetch may reach, such as 127.0.0.0/8; loopback, private and link-local addresses are refused otherwise. */
    private List<String> allowNetwork = new ArrayList<>();

    /** Container images (patterns, * matches anything) container tools may run, such as ghcr.io/acme/*. */
    private List<String> allowImage = new ArrayList<>();

    /** Programs (patterns) tool records may start, such as MCP servers: npx, /opt/mcp/*. */
    private List<String> allowCommand = new ArrayList<>();

    /** Directories module tools may load jars from. */
    private List<Path> allowModuleDir = new ArrayList<>();

    /** Ed25519 public keys (PEM files) of the publishers whose signed tools, configs and agents are trusted; when set, unsigned ones are not. */
    private List<Path> trustedKeys = new ArrayList<>();

    /** Tools allowed to request other tools (write tool.request.v1 records that run), as an orchestrator does. Only the host and agents may by default. */
    private List<String> requesterTools = new ArrayList<>();

    public List<String> getAllowNetwork() {
      return allowNetwork;
    }

    public void setAllowNetwork(List<String> allowNetwork) {
      this.allowNetwork = allowNetwork;
    }

    public List<String> getAllowImage() {
      return allowImage;
    }

    public void setAllowImage(List<String> allowImage) {
      this.allowImage = allowImage;
    }

    public List<String> getAllowCommand() {
      return allowCommand;
    }

    public void setAllowCommand(List<String> allowCommand) {
      this.allowCommand = allowCommand;
    }

    public List<Path> getAllowModuleDir() {
      return allowModuleDir;
    }

    public void setAllowModuleDir(List<Path> allowModuleDir) {
      this.allowModuleDir = allowModuleDir;
    }

    public List<Path> getTrustedKeys() {
      return trustedKeys;
    }

    public void setTrustedKeys(List<Path> trustedKeys) {
      this.trustedKeys = trustedKeys;
    }

    public List<String> getRequesterTools() {
      return requesterTools;
    }

    public void setRequesterTools(List<String> requesterTools) {
      this.requesterTools = requesterTools;
    }
  }

  /** The agent the configured {@code AgentExecutor} runs. */
  public static class Agent {
    /** At its defaults. */
    public Agent() {}

    /** The agent_id of the agent definition to run: the newest host-written agent.def.v1 or agent.definition.v1 record with it. */
    private String id = "default-chat-assistant";

    /** Most model rounds in one turn. */
    private int maxRounds = 10;

    /** Longest a turn may run (approval waits not counted); then it ends with an agent_timeout answer. */
    private Duration turnTimeout = Duration.ofMinutes(10);

    /**
     * Whether the application also answers user.message.v1 records other processes write to the
     * store (AgentExecutor.start()), sharing the work with every process that serves the same store.
     */
    private boolean serve = false;

    public String getId() {
      return id;
    }

    public void setId(String id) {
      this.id = id;
    }

    public int getMaxRounds() {
      return maxRounds;
    }

    public void setMaxRounds(int maxRounds) {
      this.maxRounds = maxRounds;
    }

    public Duration getTurnTimeout() {
      return turnTimeout;
    }

    public void setTurnTimeout(Duration turnTimeout) {
      this.turnTimeout = turnTimeout;
    }

    public boolean isServe() {
      return serve;
    }

    public void setServe(boolean serve) {
      this.serve = serve;
    }
  }
}

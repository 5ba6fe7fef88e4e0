package dev.rcrt.serverstore.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rcrt.core.Breadcrumb;
import dev.rcrt.core.Selector;
import dev.rcrt.serverstore.internal.RestClient.Reply;
import dev.rcrt.serverstore.internal.WireRecords.Stored;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reading from an RCRT server: a record by its server id or by the id its creator gave (remembered
 * once resolved, since ids never change), searches with the selector parts the server cannot apply
 * applied here while paging, and vector search. Thread-safe.
 */
public final class ServerReads {
  /** Records asked of the server per page while searching. */
  private static final int PAGE = 200;

  private final RestClient rest;
  private final WireRecords wire;
  /** Host-supplied ids resolved to the server's UUIDs. */
  private final Map<String, String> serverIds = new ConcurrentHashMap<>();

  public ServerReads(RestClient rest, WireRecords wire) {
    this.rest = rest;
    this.wire = wire;
  }

  /** Remembers that the record created with {@code id} has {@code serverId}. */
  public void remember(String id, String serverId) {
    serverIds.put(id, serverId);
  }

  /** Forgets {@code id}, once deleted. */
  public void forget(String id) {
    serverIds.remove(id);
  }

  /** A search: server-side by schema and one tag, the rest of the selector applied while paging. */
  public List<Breadcrumb> search(Selector selector, int limit, int offset) {
    if (limit < 1 || offset < 0) {
      throw new IllegalArgumentException("limit must be at least 1 and offset at least 0, found " + limit + " and " + offset);
    }
    StringBuilder query = new StringBuilder("/breadcrumbs?include_context=true");
    if (selector.schemaName() != null) {
      query.append("&schema_name=").append(encode(selector.schemaName()));
    }
    if (!selector.allTags().isEmpty()) {
      query.append("&tag=").append(encode(selector.allTags().get(0)));
    }
    List<String> window = new ArrayList<>();
    int skipped = 0;
    for (int page = 0; window.size() < limit; page += PAGE) {
      String path = query + "&limit=" + PAGE + "&offset=" + page;
      Reply reply = rest.send("GET", path, null, Map.of());
      if (!reply.ok()) {
        throw RestClient.unexpected("GET " + path, reply);
      }
      JsonNode items = reply.json();
      for (JsonNode item : items) {
        if (window.size() < limit && selector.matches(wire.read(item, false).record())) {
          if (skipped < offset) {
            skipped++;
          } else {
            window.add(item.path("id").asText());
          }
        }
      }
      if (items.size() < PAGE) {
        break;
      }
    }
    List<Breadcrumb> out = new ArrayList<>();
    for (String serverId : window) {
      fetch(serverId).ifPresent(s -> out.add(s.record()));
    }
    return out;
  }

  /** RCRT's vector search, each hit read in full and kept if it meets {@code filter}. */
  public List<Breadcrumb> nearest(String query, int nn, Selector filter) {
    StringBuilder path = new StringBuilder("/breadcrumbs/search?q=").append(encode(query)).append("&nn=").append(Math.max(1, nn));
    if (filter.schemaName() != null) {
      path.append("&schema_name=").append(encode(filter.schemaName()));
    }
    Reply reply = rest.send("GET", path.toString(), null, Map.of());
    if (!reply.ok()) {
      throw RestClient.unexpected("GET /breadcrumbs/search", reply);
    }
    List<Breadcrumb> out = new ArrayList<>();
    for (JsonNode item : reply.json()) {
      fetch(item.path("id").asText()).map(Stored::record).filter(filter::matches).ifPresent(out::add);
    }
    return out;
  }

  /** A record by the id callers know: a remembered or tagged host id, else the server's own id. */
  public Optional<Stored> resolve(String id) {
    if (looksLikeServerId(id)) {
      Optional<Stored> direct = fetch(id);
      if (direct.isPresent() && direct.get().record().id().equals(id)) {
        return direct;
      }
    }
    String known = serverIds.get(id);
    if (known != null) {
      Optional<Stored> found = fetch(known);
      if (found.isPresent()) {
        return found;
      }
      serverIds.remove(id);
    }
    Optional<Stored> tagged = findByTag(WireRecords.idTag(id));
    tagged.ifPresent(s -> serverIds.put(id, s.serverId()));
    return tagged;
  }

  /** The record with {@code tag} (a reserved one, unique), or empty. */
  public Optional<Stored> findByTag(String tag) {
    String path = "/breadcrumbs?tag=" + encode(tag) + "&limit=1";
    Reply reply = rest.send("GET", path, null, Map.of());
    if (!reply.ok()) {
      throw RestClient.unexpected("GET /breadcrumbs?tag=…", reply);
    }
    JsonNode items = reply.json();
    return items.isEmpty() ? Optional.empty() : fetch(items.get(0).path("id").asText());
  }

  /** {@code GET /breadcrumbs/{serverId}/full}; empty on 404. */
  public Optional<Stored> fetch(String serverId) {
    Reply reply = rest.send("GET", "/breadcrumbs/" + encode(serverId) + "/full", null, Map.of());
    if (reply.status() == 404) {
      return Optional.empty();
    }
    if (!reply.ok()) {
      throw RestClient.unexpected("GET /breadcrumbs/" + serverId + "/full", reply);
    }
    return Optional.of(wire.read(reply.json(), false));
  }

  private static boolean looksLikeServerId(String id) {
    return id.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

}

package dev.tide.connectors.format;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A test stand-in for a Confluent schema registry: a JDK {@link HttpServer} on loopback that speaks
 * the documented REST subset Tide uses, {@code GET /schemas/ids/{id}} ({@code {"schema": "..."}}, or
 * 404 with error code 40403) and {@code POST /subjects/{subject}/versions} (body {@code {"schema":
 * "..."}}; answers {@code {"id": n}}, the same id for the same schema text). It checks no
 * compatibility and keeps everything in memory. It is not the Confluent registry (not on Maven
 * Central), so what it proves is that Tide speaks that documented API and wire format.
 */
public final class LoopbackSchemaRegistry implements AutoCloseable {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(\\d+)");
  private static final Pattern VERSIONS = Pattern.compile("/subjects/([^/]+)/versions");
  private final HttpServer server;
  private final Map<Integer, String> schemas = new HashMap<>();
  private final Map<String, Integer> ids = new HashMap<>();
  private final Map<String, List<Integer>> subjects = new HashMap<>();
  private int fetches;
  /** The Authorization header every request must carry, or null. */
  private final String authorization;

  public LoopbackSchemaRegistry() throws IOException {
    this(null);
  }

  /** A registry that answers 401 unless a request carries HTTP basic authentication {@code userPassword} (null: open). */
  public LoopbackSchemaRegistry(String userPassword) throws IOException {
    authorization = userPassword == null ? null
        : "Basic " + java.util.Base64.getEncoder().encodeToString(userPassword.getBytes(StandardCharsets.UTF_8));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Registers {@code schema} under {@code subject} as a producer would; returns its id. */
  public synchronized int register(String subject, String schema) {
    String canonical = AvroFormat.parse(schema).toString();
    int id = ids.computeIfAbsent(canonical, s -> ids.size() + 1);
    schemas.put(id, canonical);
    List<Integer> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
    if (!versions.contains(id)) {
      versions.add(id);
    }
    return id;
  }

  /** The ids registered under {@code subject}, in order. */
  public synchronized List<Integer> versions(String subject) {
    return List.copyOf(subjects.getOrDefault(subject, List.of()));
  }

  /** The schema of {@code id}. */
  public synchronized String schema(int id) {
    return schemas.get(id);
  }

  /** {@code GET /schemas/ids/...} requests served so far (for the cache). */
  public synchronized int fetches() {
    return fetches;
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    Matcher byId = BY_ID.matcher(path);
    Matcher versions = VERSIONS.matcher(path);
    try (ex) {
      if (authorization != null && !authorization.equals(ex.getRequestHeaders().getFirst("Authorization"))) {
        reply(ex, 401, JSON.createObjectNode().put("error_code", 401).put("message", "Unauthorized").toString());
      } else if (ex.getRequestMethod().equals("GET") && byId.matches()) {
        String s;
        synchronized (this) {
          fetches++;
          s = schemas.get(Integer.parseInt(byId.group(1)));
        }
        if (s == null) {
          reply(ex, 404, JSON.createObjectNode().put("error_code", 40403).put("message", "Schema " + byId.group(1) + " not found").toString());
        } else {
          reply(ex, 200, JSON.createObjectNode().put("schema", s).toString());
        }
      } else if (ex.getRequestMethod().equals("POST") && versions.matches()) {
        JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
        int id = register(versions.group(1), body.get("schema").asString());
        reply(ex, 200, JSON.createObjectNode().put("id", id).toString());
      } else {
        reply(ex, 404, JSON.createObjectNode().put("error_code", 404).put("message", "HTTP 404 Not Found").toString());
      }
    }
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
    ex.sendResponseHeaders(status, b.length);
    ex.getResponseBody().write(b);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}

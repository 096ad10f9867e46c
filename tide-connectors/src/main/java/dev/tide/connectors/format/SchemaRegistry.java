package dev.tide.connectors.format;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A client of the documented REST API of a Confluent-compatible schema registry, for Avro schemas:
 * {@code GET /schemas/ids/{id}} (a writer schema by id) and {@code POST /subjects/{subject}/versions}
 * (register a schema, or find the id it already has). Schemas by id are immutable, so they are
 * cached for the life of the client, and so is an id the registry does not know.
 *
 * <p>Failures: an id the registry does not know ({@link UnknownSchemaException}) is a property of
 * the record; a registry that cannot be reached or answers 5xx is an {@link IllegalStateException}
 * (not the record's fault: the actor fails and the job retries). Thread-safety: confined to one thread.
 */
public final class SchemaRegistry {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private final String url;
  private final Duration timeout;
  /** The Authorization header's value, or null. */
  private final String authorization;
  private final HttpClient http;
  private final Map<Integer, org.apache.avro.Schema> byId = new HashMap<>();
  /** Ids the registry answered 404 for (a producer registers before it writes, so that does not change): not asked again. */
  private final Map<Integer, String> unknown = new HashMap<>();

  /** {@code url} without a trailing slash is the registry's base, e.g. {@code http://localhost:8081}. */
  public SchemaRegistry(String url, Duration timeout) {
    this(url, "", timeout);
  }

  /** With {@code basicAuth} {@code user:password} (empty: none) sent as HTTP basic authentication. */
  public SchemaRegistry(String url, String basicAuth, Duration timeout) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    this.timeout = timeout;
    this.authorization = basicAuth.isEmpty() ? null
        : "Basic " + java.util.Base64.getEncoder().encodeToString(basicAuth.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** An id the registry answers 404 for. */
  public static final class UnknownSchemaException extends IllegalArgumentException {
    UnknownSchemaException(String message) {
      super(message);
    }
  }

  /** The Avro schema of {@code id}, fetched once. */
  public org.apache.avro.Schema schema(int id) {
    org.apache.avro.Schema s = byId.get(id);
    if (s != null) {
      return s;
    }
    if (unknown.containsKey(id)) {
      throw new UnknownSchemaException(unknown.get(id));
    }
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url + "/schemas/ids/" + id)).GET(), "fetching schema id " + id);
    if (r.statusCode() == 404) {
      unknown.put(id, "schema id " + id + " is not in the registry at " + url);
      throw new UnknownSchemaException(unknown.get(id));
    }
    JsonNode body = ok(r, "fetching schema id " + id);
    JsonNode type = body.get("schemaType");
    if (type != null && !type.isNull() && !type.asString().equals("AVRO")) {
      throw new UnknownSchemaException("schema id " + id + " at " + url + " is a " + type.asString() + " schema, not Avro");
    }
    s = AvroFormat.parse(body.get("schema").asString());
    byId.put(id, s);
    return s;
  }

  /** Registers {@code schema} under {@code subject} (or finds it there) and returns its id. */
  public int register(String subject, org.apache.avro.Schema schema) {
    String body = JSON.createObjectNode().put("schema", schema.toString()).toString();
    String what = "registering a schema under subject '" + subject + "'";
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url + "/subjects/" + subject + "/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json").POST(HttpRequest.BodyPublishers.ofString(body)), what);
    if (r.statusCode() == 409 || r.statusCode() == 422) {
      throw new IllegalArgumentException(what + " at " + url + " was refused (" + r.statusCode() + "): " + r.body()
          + "; the subject's compatibility rule does not admit the sink's schema");
    }
    int id = ok(r, what).get("id").asInt();
    byId.put(id, schema);
    return id;
  }

  private HttpResponse<String> send(HttpRequest.Builder request, String what) {
    request.timeout(timeout).header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException("schema registry " + url + ": " + what + " failed: " + e + "; the job recovers and retries", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("schema registry " + url + ": " + what + " interrupted", e);
    }
  }

  private JsonNode ok(HttpResponse<String> r, String what) {
    if (r.statusCode() == 401 || r.statusCode() == 403) {
      throw new IllegalStateException("schema registry " + url + ": " + what + " was refused (" + r.statusCode()
          + "): check option 'avro.schema-registry.basic-auth'; the job recovers and retries");
    }
    if (r.statusCode() / 100 != 2) {
      throw new IllegalStateException("schema registry " + url + ": " + what + " answered " + r.statusCode() + " " + r.body()
          + "; the job recovers and retries");
    }
    try {
      return JSON.readTree(r.body());
    } catch (RuntimeException e) {
      throw new IllegalStateException("schema registry " + url + ": " + what + " answered a body that is not JSON: " + r.body(), e);
    }
  }
}

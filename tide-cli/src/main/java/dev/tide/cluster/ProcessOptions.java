package dev.tide.cluster;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.meta.MetaOptions;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.object.S3Config;
import dev.tide.storage.object.S3ObjectStore;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Options of the cluster processes ({@code tide meta}, {@code tide compute}), read from a
 * properties file ({@code --config}) and overridden by flags. One file can configure every process
 * of a cluster: each takes the keys it knows and the engine options of {@link MetaOptions}.
 */
public final class ProcessOptions {
  private static final String ENDPOINT_RULE = "HOST:PORT with a port between 0 and 65535, e.g. 127.0.0.1:5690";

  private static boolean isEndpoint(String text) {
    try {
      Endpoint.parse(text, "127.0.0.1:5690");
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public static final ConfigOption<String> DATA_DIR = ConfigOption.stringOption("data-dir", "tide-data",
      "Directory of the meta store file (SQLite) and of the local object store, unless those are set.");
  public static final ConfigOption<String> META_LISTEN = ConfigOption.stringOption("meta.listen", "127.0.0.1:5690",
      "HOST:PORT where meta serves gRPC (compute nodes, optimizers, tide ctl). Port 0 picks a free one.")
      .withRule(ProcessOptions::isEndpoint, ENDPOINT_RULE);
  public static final ConfigOption<Integer> META_HTTP_PORT = ConfigOption.intOption("meta.http-port", 5691,
      "Port of meta's HTTP endpoint (/metrics, /api/status) on the meta.listen host; 0 picks a free one, -1 turns it off.")
      .withRule(p -> p >= -1 && p <= 65535, "-1 (off), 0 (any free port) or a port up to 65535");
  public static final ConfigOption<String> META_STORE = ConfigOption.stringOption("meta.store", "",
      "JDBC URL of the meta store: jdbc:sqlite:FILE or jdbc:postgresql://HOST:PORT/DB?user=U&password=P. "
          + "Empty: SQLite at <data-dir>/meta.db.")
      .withRule(u -> u.isEmpty() || u.startsWith("jdbc:sqlite:") || u.startsWith("jdbc:postgresql://"),
          "empty, jdbc:sqlite:FILE or jdbc:postgresql://HOST:PORT/DB");
  public static final ConfigOption<String> OBJECT_STORE_DIR = ConfigOption.stringOption("object-store.dir", "",
      "Directory of the local object store, shared by every process of the cluster. Empty: <data-dir>/objects. "
          + "Ignored when s3.bucket is set.");
  public static final ConfigOption<String> COMPUTE_META = ConfigOption.stringOption("compute.meta", "127.0.0.1:5690",
      "HOST:PORT of meta, where a compute node registers.")
      .withRule(ProcessOptions::isEndpoint, ENDPOINT_RULE);
  public static final ConfigOption<String> COMPUTE_LISTEN = ConfigOption.stringOption("compute.listen", "127.0.0.1:0",
      "HOST:PORT where a compute node serves its stream and exchange services; port 0 picks a free one.")
      .withRule(ProcessOptions::isEndpoint, ENDPOINT_RULE);
  public static final ConfigOption<Integer> COMPUTE_SLOTS = ConfigOption.intOption("compute.slots",
      Runtime.getRuntime().availableProcessors(),
      "Actors of one fragment a compute node takes (its share of a job's parallelism); default: the machine's available processors.")
      .withRule(n -> n >= 1 && n <= 1024, "between 1 and 1024");
  public static final ConfigOption<String> COMPUTE_RESOURCE_ID = ConfigOption.stringOption("compute.resource-id", "",
      "The compute pool's resource this node was launched for (set by the pool's provider); empty for a node started by hand.")
      .withRule(v -> v.matches("[A-Za-z0-9._-]*"), "letters, digits, '.', '_' and '-' only");
  public static final ConfigOption<java.time.Duration> COMPUTE_REGISTER_TIMEOUT = ConfigOption.durationOption("compute.register-timeout",
      java.time.Duration.ofSeconds(30), "How long a starting compute node waits for meta to answer its registration.")
      .withRule(d -> d.toMillis() >= 100 && d.toMillis() <= 3_600_000, "between 100ms and 1h");
  public static final ConfigOption<java.time.Duration> COMPUTE_SHUTDOWN_TIMEOUT = ConfigOption.durationOption("compute.shutdown-timeout",
      java.time.Duration.ofSeconds(60), "On SIGTERM, how long a compute node waits for meta to drain it (its actors migrate off"
      + " online) before it stops anyway, and meta recovers its actors as after a crash.")
      .withRule(d -> d.toMillis() >= 0 && d.toMillis() <= 3_600_000, "between 0 and 1h");
  public static final ConfigOption<String> TOKEN = ConfigOption.stringOption("cluster.token", "",
      "Shared secret every call must present; prefer the TIDE_TOKEN environment variable to a file. "
          + "Empty: no token, allowed only when every server binds loopback.");


  /** The roles (processes) that read configuration keys. */
  public enum Role {
    META, COMPUTE, OPTIMIZER;

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** An option and the roles that read it. */
  public record Key(ConfigOption<?> option, java.util.Set<Role> roles) {}

  /** Keys that were renamed: a file that still has one is refused with the new key named. */
  static final Map<String, String> RENAMED = Map.of("objects.dir", OBJECT_STORE_DIR.key());

  /**
   * Every key a cluster config file may hold, with the roles that read it, in declaration order. A
   * process accepts every key here (one file serves every role) and ignores those its role does not read.
   */
  public static List<Key> catalog() {
    java.util.EnumSet<Role> all = java.util.EnumSet.allOf(Role.class);
    java.util.EnumSet<Role> meta = java.util.EnumSet.of(Role.META);
    java.util.EnumSet<Role> compute = java.util.EnumSet.of(Role.COMPUTE);
    List<Key> keys = new ArrayList<>();
    keys.add(new Key(DATA_DIR, all));
    keys.add(new Key(META_LISTEN, meta));
    keys.add(new Key(META_HTTP_PORT, meta));
    keys.add(new Key(META_STORE, meta));
    keys.add(new Key(OBJECT_STORE_DIR, all));
    for (ConfigOption<?> o : List.of(COMPUTE_META, COMPUTE_LISTEN, COMPUTE_SLOTS, COMPUTE_RESOURCE_ID, COMPUTE_REGISTER_TIMEOUT,
        COMPUTE_SHUTDOWN_TIMEOUT)) {
      keys.add(new Key(o, compute));
    }
    keys.add(new Key(TOKEN, all));
    for (ConfigOption<?> o : MetaOptions.ALL) {
      keys.add(new Key(o, o == MetaOptions.HEARTBEAT_INTERVAL ? java.util.EnumSet.of(Role.META, Role.COMPUTE) : meta));
    }
    dev.tide.meta.autoscale.AutoscalerOptions.ALL.forEach(o -> keys.add(new Key(o, meta)));
    dev.tide.meta.pool.ComputePoolOptions.ALL.forEach(o -> keys.add(new Key(o, meta)));
    dev.tide.sql.SqlOptions.ALL.forEach(o -> keys.add(new Key(o, meta)));
    S3Config.ALL.forEach(o -> keys.add(new Key(o, all)));
    dev.tide.stream.exchange.ExchangeConfig.ALL.forEach(o -> keys.add(new Key(o, compute)));
    dev.tide.optimizer.workload.WorkloadOptions.ALL.forEach(o -> keys.add(new Key(o, meta)));
    OptimizerGroups.OPTIONS.forEach(o -> keys.add(new Key(o, meta)));
    return keys;
  }

  /** Every option a cluster config file may hold. */
  public static List<ConfigOption<?>> all() {
    return catalog().stream().<ConfigOption<?>>map(Key::option).toList();
  }

  private ProcessOptions() {}

  /**
   * The options of {@code file} (if any), then of {@code overrides} (flags win).
   *
   * @throws ConfigException naming the file, the key, the value and the rule
   */
  public static Config load(Path file, Map<String, String> overrides) {
    Map<String, String> raw = new HashMap<>();
    if (file != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage());
      }
      p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k).strip()));
    }
    raw.putAll(overrides);
    for (Map.Entry<String, String> r : RENAMED.entrySet()) {
      if (raw.containsKey(r.getKey())) {
        ConfigException e = new ConfigException(r.getKey(), "renamed; write " + r.getValue() + "=" + raw.get(r.getKey())
            + " instead (the key every role reads)");
        throw file == null ? e : new IllegalArgumentException(file + ": " + e.getMessage(), e);
      }
    }
    List<ConfigOption<?>> known = all();
    for (String key : new java.util.TreeSet<>(raw.keySet())) {
      if (known.stream().noneMatch(o -> o.key().equals(key))) {
        ConfigException e = new ConfigException(key, "unknown option" + closest(key, known)
            + "; 'tide options' lists every key");
        throw file == null ? e : new IllegalArgumentException(file + ": " + e.getMessage(), e);
      }
    }
    try {
      return Config.parse(raw, known);
    } catch (ConfigException e) {
      throw file == null ? e : new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /** " (did you mean 'K'?)" for the known key nearest to {@code key} by edit distance, if it is near. */
  private static String closest(String key, List<ConfigOption<?>> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (ConfigOption<?> o : known) {
      int d = distance(key, o.key());
      if (d < bestDistance) {
        best = o.key();
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, key.length() / 4) ? " (did you mean '" + best + "'?)" : "";
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j], cur[j - 1]) + 1);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  public static Path dataDir(Config c) {
    return Path.of(c.get(DATA_DIR));
  }

  /** The JDBC URL of the meta store. */
  public static String metaStoreUrl(Config c) {
    String url = c.get(META_STORE);
    return url.isBlank() ? "jdbc:sqlite:" + dataDir(c).resolve("meta.db").toAbsolutePath() : url;
  }

  /** The object store the config names: S3 when {@code s3.bucket} is set, else the local directory. */
  public static ObjectStore objectStore(Config c) {
    if (c.isSet(S3Config.BUCKET)) {
      return S3ObjectStore.open(S3Config.from(c));
    }
    String dir = c.get(OBJECT_STORE_DIR);
    return new LocalObjectStore(dir.isBlank() ? dataDir(c).resolve("objects") : Path.of(dir));
  }
}

package dev.tide.meta.store;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.meta.schedule.Worker;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * A {@link MetaStore} in a SQL database reached over JDBC: a SQLite file ({@code jdbc:sqlite:<file>},
 * the default) or PostgreSQL ({@code jdbc:postgresql://host:port/database}, for production). Both
 * use the same tables and statements; {@link Dialect} holds the few differences.
 *
 * <p>{@link #open} brings the schema up to date: it creates {@code schema_version} in an empty
 * store and runs the {@link Schema#MIGRATIONS} the store lacks, all in one transaction (PostgreSQL
 * serializes concurrent openers with an advisory lock). It refuses a store of a newer schema
 * version than this code knows, a database that holds other tables but no {@code schema_version},
 * and a SQLite file that is not a database, each with a message naming the store.
 *
 * <p>One connection, used by one operation at a time ({@code synchronized}). SQLite runs in WAL
 * mode with {@code synchronous=FULL} (a commit survives power loss); PostgreSQL at REPEATABLE
 * READ, so {@link #load()} reads one snapshot. One meta process owns a store: nothing here guards
 * against two metas writing the same store, except that a committed version never goes back. After a lost
 * PostgreSQL connection the operation fails and the next one reconnects.
 */
public final class JdbcMetaStore implements MetaStore {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcMetaStore.class);
  /** Advisory lock key ("tidemeta" in ASCII) that serializes schema migrations on PostgreSQL. */
  private static final long MIGRATION_LOCK = 0x746964656d657461L;
  private static final int SQLITE_CORRUPT = 11;
  private static final int SQLITE_NOTADB = 26;
  private static final String OPENING = "opening";

  private final String url;
  private final Properties properties;
  private final Dialect dialect;
  private final Path file;
  private final String description;
  private final List<Migration> migrations;
  private Connection connection;
  private boolean closed;
  private int schemaVersion;

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private JdbcMetaStore(String url, Properties properties, List<Migration> migrations) {
    this.url = url;
    this.properties = new Properties();
    this.properties.putAll(properties);
    this.dialect = Dialect.of(url);
    this.file = dialect == Dialect.SQLITE ? sqliteFile(url) : null;
    this.description = file != null ? "SQLite file " + file : stripParameters(url);
    this.migrations = Migration.sequence(migrations);
  }

  /** Opens (creating or migrating as needed) the store at {@code url}; credentials may be URL parameters. */
  public static JdbcMetaStore open(String url) {
    return open(url, new Properties());
  }

  /** Opens the store at {@code url} with driver {@code properties} (e.g. {@code user}, {@code password}). */
  public static JdbcMetaStore open(String url, Properties properties) {
    return open(url, properties, Schema.MIGRATIONS);
  }

  /** Opens with the given schema history; tests use it to play older or newer code. */
  static JdbcMetaStore open(String url, Properties properties, List<Migration> migrations) {
    JdbcMetaStore store = new JdbcMetaStore(Objects.requireNonNull(url, "url"), properties, migrations);
    try {
      store.createParentDirectory();
      store.migrate();
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /** The schema version of the open store (the newest this code knows). */
  public synchronized int schemaVersion() {
    return schemaVersion;
  }

  @Override
  public String describe() {
    return description;
  }

  // ---------------------------------------------------------------- schema

  private void migrate() {
    schemaVersion = tx(OPENING, c -> {
      if (dialect == Dialect.POSTGRESQL) {
        try (Statement s = c.createStatement()) {
          s.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
        }
      }
      List<String> tables = dialect.tables(c);
      int current = 0;
      if (tables.contains("schema_version")) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT MAX(version) FROM schema_version")) {
          rs.next();
          current = rs.getInt(1);
        }
      } else if (!tables.isEmpty()) {
        throw new MetaStoreException("opening meta store " + description + " refused: it is not a Tide meta store (it holds tables "
            + tables + " but no schema_version table); point the meta store at an empty database or a new file");
      } else {
        try (Statement s = c.createStatement()) {
          s.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL)");
        }
      }
      int supported = migrations.size();
      if (current > supported) {
        throw new MetaStoreException("opening meta store " + description + " refused: its schema version is " + current
            + ", newer than " + supported + ", the newest this Tide supports; run a Tide release that supports schema version "
            + current + " (a store is never downgraded)");
      }
      for (Migration m : migrations.subList(current, supported)) {
        for (String statement : m.statements()) {
          try (Statement s = c.createStatement()) {
            s.execute(dialect.sql(statement));
          } catch (SQLException e) {
            throw new MetaStoreException("migration of meta store " + description + " to schema version " + m.version() + " ("
                + m.description() + ") failed at '" + dialect.sql(statement) + "': " + e.getMessage() + "; the store stays at schema version "
                + current, e);
          }
        }
        try (PreparedStatement p = c.prepareStatement("INSERT INTO schema_version (version, description) VALUES (?, ?)")) {
          p.setInt(1, m.version());
          p.setString(2, m.description());
          p.executeUpdate();
        }
      }
      if (current < supported) {
        LOG.info("meta store {} migrated from schema version {} to {}", description, current, supported);
      }
      return supported;
    });
  }

  // ---------------------------------------------------------------- reads

  @Override
  public MetaSnapshot load() {
    return tx("load", c -> {
      StoreVersion version;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT version_id, max_committed_epoch, version FROM store_version WHERE singleton = 1")) {
        if (!rs.next()) {
          throw unreadable("the store_version row is missing");
        }
        byte[] bytes = rs.getBytes(3);
        version = bytes == null ? VersionDeltas.empty() : parseVersion(bytes);
      }
      TreeMap<Integer, JobRecord> jobs = new TreeMap<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT job_id, definition, intent, layout, paused FROM jobs ORDER BY job_id")) {
        while (rs.next()) {
          JobRecord j = parseJob(rs.getInt(1), rs.getBytes(2), rs.getString(3), rs.getString(4), rs.getBoolean(5));
          jobs.put(j.jobId(), j);
        }
      }
      TreeMap<Integer, WorkerRecord> workers = new TreeMap<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT worker_id, address, slots, draining, resource_id FROM workers ORDER BY worker_id")) {
        while (rs.next()) {
          int id = rs.getInt(1);
          try {
            workers.put(id, new WorkerRecord(new Worker(id, rs.getString(2), rs.getInt(3)), rs.getBoolean(4), rs.getString(5)));
          } catch (IllegalArgumentException e) {
            throw unreadable("worker " + id + " is not valid: " + e.getMessage());
          }
        }
      }
      TreeMap<String, String> groups = new TreeMap<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT name, properties FROM optimizer_groups ORDER BY name")) {
        while (rs.next()) {
          groups.put(rs.getString(1), rs.getString(2));
        }
      }
      return new MetaSnapshot(jobs, workers, version, readCounters(c), groups);
    });
  }

  private StoreVersion parseVersion(byte[] bytes) {
    try {
      return StoreVersion.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw unreadable("the committed store version does not parse: " + e.getMessage());
    }
  }

  private JobRecord parseJob(int jobId, byte[] definition, String intent, String layout, boolean paused) {
    JobDefinition def;
    try {
      def = JobDefinition.parseFrom(definition);
    } catch (InvalidProtocolBufferException e) {
      throw unreadable("the definition of job " + jobId + " does not parse: " + e.getMessage());
    }
    if (def.getJobId() != jobId) {
      throw unreadable("the row of job " + jobId + " holds the definition of job " + def.getJobId());
    }
    try {
      return new JobRecord(def, JobIntent.parse(intent), LayoutText.parse(layout), paused);
    } catch (IllegalArgumentException e) {
      throw unreadable("job " + jobId + " '" + def.getName() + "' is not valid: " + e.getMessage());
    }
  }

  private Counters readCounters(Connection c) throws SQLException {
    Map<IdKind, Long> next = new EnumMap<>(IdKind.class);
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name, next_value FROM counters")) {
      while (rs.next()) {
        for (IdKind k : IdKind.values()) {
          if (k.key().equals(rs.getString(1))) {
            next.put(k, rs.getLong(2));
          }
        }
      }
    }
    for (IdKind k : IdKind.values()) {
      if (!next.containsKey(k)) {
        throw unreadable("the counter '" + k.key() + "' is missing");
      }
    }
    return new Counters(next.get(IdKind.JOB), next.get(IdKind.ACTOR), next.get(IdKind.WORKER), next.get(IdKind.SST));
  }

  private MetaStoreException unreadable(String what) {
    return new MetaStoreException("meta store " + description + " is not readable: " + what + "; restore it from a backup");
  }

  // ---------------------------------------------------------------- jobs

  @Override
  public void putJob(JobRecord job) {
    String op = "put of job " + job.jobId() + " '" + job.name() + "'";
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("SELECT job_id FROM jobs WHERE name = ? AND job_id <> ?")) {
        p.setString(1, job.name());
        p.setInt(2, job.jobId());
        try (ResultSet rs = p.executeQuery()) {
          if (rs.next()) {
            throw new IllegalArgumentException(op + " refused: job " + rs.getInt(1) + " already has that name; drop it first");
          }
        }
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO jobs (job_id, name, definition, intent, layout, paused)"
          + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_id) DO UPDATE SET name = excluded.name, definition = excluded.definition,"
          + " intent = excluded.intent, layout = excluded.layout, paused = excluded.paused")) {
        p.setInt(1, job.jobId());
        p.setString(2, job.name());
        p.setBytes(3, job.definition().toByteArray());
        p.setString(4, job.intent().render());
        p.setString(5, LayoutText.render(job.layout()));
        p.setBoolean(6, job.paused());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public boolean deleteJob(int jobId) {
    return tx("delete of job " + jobId, c -> {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM jobs WHERE job_id = ?")) {
        p.setInt(1, jobId);
        return p.executeUpdate() > 0;
      }
    });
  }

  @Override
  public void setPaused(int jobId, boolean paused) {
    String op = (paused ? "pause" : "resume") + " of job " + jobId;
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("UPDATE jobs SET paused = ? WHERE job_id = ?")) {
        p.setBoolean(1, paused);
        p.setInt(2, jobId);
        if (p.executeUpdate() == 0) {
          throw new IllegalArgumentException(op + " refused: the meta store holds no job " + jobId);
        }
      }
      return null;
    });
  }

  // ---------------------------------------------------------------- version and counters

  @Override
  public void commitVersion(StoreVersion version, List<LayoutUpdate> layouts, Counters counterFloors) {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(counterFloors, "counterFloors");
    List<LayoutUpdate> updates = List.copyOf(layouts);
    String op = "commit of version " + version.getId() + " (epoch " + version.getMaxCommittedEpoch() + ")";
    tx(op, c -> {
      writeVersion(c, op, version);
      try (PreparedStatement p = c.prepareStatement("UPDATE jobs SET intent = ?, layout = ? WHERE job_id = ?")) {
        for (LayoutUpdate u : updates) {
          p.setString(1, u.intent().render());
          p.setString(2, LayoutText.render(u.layout()));
          p.setInt(3, u.jobId());
          if (p.executeUpdate() == 0) {
            throw new IllegalArgumentException(op + " refused: it carries a layout for job " + u.jobId() + ", which the meta store does not hold");
          }
        }
      }
      raiseCounters(c, op, counterFloors);
      return null;
    });
  }

  @Override
  public void commitCompaction(StoreVersion version, List<SstInfo> dropped, Counters counterFloors) {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(counterFloors, "counterFloors");
    List<SstInfo> ssts = List.copyOf(dropped);
    String op = "commit of compaction version " + version.getId() + " (dropping " + ssts.size() + " SSTs)";
    tx(op, c -> {
      writeVersion(c, op, version);
      try (PreparedStatement p = c.prepareStatement("INSERT INTO obsolete_ssts (sst_id, dropped_by_version, sst) VALUES (?, ?, ?)")) {
        for (SstInfo sst : ssts) {
          p.setLong(1, sst.getId());
          p.setLong(2, version.getId());
          p.setBytes(3, sst.toByteArray());
          p.addBatch();
        }
        p.executeBatch();
      }
      raiseCounters(c, op, counterFloors);
      return null;
    });
  }

  @Override
  public List<ObsoleteSstRecord> obsoleteSsts() {
    return tx("load of obsolete SSTs", c -> {
      List<ObsoleteSstRecord> out = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT sst_id, dropped_by_version, sst FROM obsolete_ssts ORDER BY sst_id")) {
        while (rs.next()) {
          try {
            out.add(new ObsoleteSstRecord(SstInfo.parseFrom(rs.getBytes(3)), rs.getLong(2)));
          } catch (InvalidProtocolBufferException e) {
            throw new MetaStoreException("meta store " + description + ": obsolete SST " + rs.getLong(1)
                + " is not a valid SstInfo (" + e.getMessage() + "); restore the store from a backup", e);
          }
        }
      }
      return out;
    });
  }

  @Override
  public void forgetObsoleteSsts(List<Long> sstIds) {
    List<Long> ids = List.copyOf(sstIds);
    if (ids.isEmpty()) {
      return;
    }
    tx("removal of " + ids.size() + " deleted obsolete SSTs", c -> {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM obsolete_ssts WHERE sst_id = ?")) {
        for (long id : ids) {
          p.setLong(1, id);
          p.addBatch();
        }
        p.executeBatch();
      }
      return null;
    });
  }

  /** Writes the committed version; refused when the store holds a newer one. */
  private static void writeVersion(Connection c, String op, StoreVersion version) throws SQLException {
    // Conditional write: a version never goes back, even if two metas share the store by mistake.
    try (PreparedStatement p = c.prepareStatement("UPDATE store_version SET version_id = ?, max_committed_epoch = ?, version = ?"
        + " WHERE singleton = 1 AND version_id <= ? AND max_committed_epoch <= ?")) {
      p.setLong(1, version.getId());
      p.setLong(2, version.getMaxCommittedEpoch());
      p.setBytes(3, version.toByteArray());
      p.setLong(4, version.getId());
      p.setLong(5, version.getMaxCommittedEpoch());
      if (p.executeUpdate() == 0) {
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT version_id, max_committed_epoch FROM store_version WHERE singleton = 1")) {
          String held = rs.next() ? "version " + rs.getLong(1) + " (epoch " + rs.getLong(2) + ")" : "no version row";
          throw new IllegalStateException(op + " refused: the meta store already holds " + held + "; a committed version never goes back");
        }
      }
    }
  }

  private void raiseCounters(Connection c, String op, Counters floors) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("UPDATE counters SET next_value = ? WHERE name = ? AND next_value < ?")) {
      for (IdKind k : IdKind.values()) {
        long floor = floors.next(k);
        if (floor == 0) {
          continue;
        }
        if (floor - 1 > k.maxId()) {
          throw new IllegalArgumentException(op + " refused: next " + k.key() + " id " + floor + " exceeds the largest " + k.key() + " id " + k.maxId());
        }
        p.setLong(1, floor);
        p.setString(2, k.key());
        p.setLong(3, floor);
        p.executeUpdate();
      }
    }
  }

  @Override
  public long allocate(IdKind kind, int count) {
    String op = "allocation of " + count + " " + kind.key() + " ids";
    if (count < 1) {
      throw new IllegalArgumentException(op + " refused: expected a count >= 1");
    }
    return tx(op, c -> {
      // Update first: it takes the row's write lock, so the read below sees this transaction's own increment.
      try (PreparedStatement p = c.prepareStatement("UPDATE counters SET next_value = next_value + ? WHERE name = ?")) {
        p.setLong(1, count);
        p.setString(2, kind.key());
        if (p.executeUpdate() != 1) {
          throw unreadable("the counter '" + kind.key() + "' is missing");
        }
      }
      try (PreparedStatement p = c.prepareStatement("SELECT next_value FROM counters WHERE name = ?")) {
        p.setString(1, kind.key());
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          long next = rs.getLong(1);
          if (next - 1 > kind.maxId()) {
            throw new IllegalStateException(op + " refused: " + kind.key() + " ids are exhausted (the next one would be " + (next - count)
                + ", the largest is " + kind.maxId() + ")");
          }
          return next - count;
        }
      }
    });
  }

  // ---------------------------------------------------------------- workers and optimizer groups

  @Override
  public void putWorker(WorkerRecord worker) {
    tx("put of worker " + worker.id(), c -> {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO workers (worker_id, address, slots, draining, resource_id) VALUES (?, ?, ?, ?, ?)"
          + " ON CONFLICT (worker_id) DO UPDATE SET address = excluded.address, slots = excluded.slots, draining = excluded.draining,"
          + " resource_id = excluded.resource_id")) {
        p.setInt(1, worker.id());
        p.setString(2, worker.worker().address());
        p.setInt(3, worker.worker().slots());
        p.setBoolean(4, worker.draining());
        p.setString(5, worker.resourceId());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public boolean deleteWorker(int workerId) {
    return tx("delete of worker " + workerId, c -> {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM workers WHERE worker_id = ?")) {
        p.setInt(1, workerId);
        return p.executeUpdate() > 0;
      }
    });
  }

  @Override
  public void putOptimizerGroup(String name, String properties) {
    String op = "put of optimizer group '" + name + "'";
    if (name == null || name.isBlank() || properties == null) {
      throw new IllegalArgumentException(op + " refused: expected a non-blank name and a properties text");
    }
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO optimizer_groups (name, properties) VALUES (?, ?)"
          + " ON CONFLICT (name) DO UPDATE SET properties = excluded.properties")) {
        p.setString(1, name);
        p.setString(2, properties);
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public boolean deleteOptimizerGroup(String name) {
    return tx("delete of optimizer group '" + name + "'", c -> {
      // Explicit, not only ON DELETE CASCADE: SQLite enforces foreign keys only when the connection enables them.
      try (PreparedStatement p = c.prepareStatement("DELETE FROM optimizer_resources WHERE group_name = ?")) {
        p.setString(1, name);
        p.executeUpdate();
      }
      try (PreparedStatement p = c.prepareStatement("DELETE FROM optimizer_groups WHERE name = ?")) {
        p.setString(1, name);
        return p.executeUpdate() > 0;
      }
    });
  }

  @Override
  public void putOptimizerGroup(OptimizerGroupRecord group) {
    String op = "put of optimizer group '" + group.name() + "'";
    if (group.name().isBlank() || group.provider().isBlank()) {
      throw new IllegalArgumentException(op + " refused: expected a non-blank name and provider");
    }
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO optimizer_groups (name, provider, properties) VALUES (?, ?, ?)"
          + " ON CONFLICT (name) DO UPDATE SET provider = excluded.provider, properties = excluded.properties")) {
        p.setString(1, group.name());
        p.setString(2, group.provider());
        p.setString(3, group.properties());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public List<OptimizerGroupRecord> optimizerGroups() {
    return tx("load of optimizer groups", c -> {
      List<OptimizerGroupRecord> out = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT name, provider, properties FROM optimizer_groups ORDER BY name")) {
        while (rs.next()) {
          out.add(new OptimizerGroupRecord(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
      }
      return out;
    });
  }

  @Override
  public void putOptimizerResource(OptimizerResourceRecord resource) {
    String op = "put of optimizer resource '" + resource.resourceId() + "' of group '" + resource.group() + "'";
    if (resource.resourceId().isBlank() || resource.threads() < 1) {
      throw new IllegalArgumentException(op + " refused: expected a non-blank resource id and threads >= 1, got " + resource.threads());
    }
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM optimizer_groups WHERE name = ?")) {
        p.setString(1, resource.group());
        try (ResultSet rs = p.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalArgumentException(op + " refused: the meta store holds no optimizer group '" + resource.group() + "'");
          }
        }
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO optimizer_resources (resource_id, group_name, threads, requested_at_ms)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT (resource_id) DO UPDATE SET group_name = excluded.group_name,"
          + " threads = excluded.threads, requested_at_ms = excluded.requested_at_ms")) {
        p.setString(1, resource.resourceId());
        p.setString(2, resource.group());
        p.setInt(3, resource.threads());
        p.setLong(4, resource.requestedAtMs());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public void putPoolResource(PoolResourceRecord resource) {
    String op = "put of pool resource '" + resource.resourceId() + "' of pool '" + resource.pool() + "'";
    if (resource.resourceId().isBlank() || resource.pool().isBlank() || resource.units() < 1) {
      throw new IllegalArgumentException(op + " refused: expected a non-blank resource id and pool and units >= 1, got "
          + resource.units());
    }
    tx(op, c -> {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO pool_resources (resource_id, pool, units, requested_at_ms)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT (resource_id) DO UPDATE SET pool = excluded.pool, units = excluded.units,"
          + " requested_at_ms = excluded.requested_at_ms")) {
        p.setString(1, resource.resourceId());
        p.setString(2, resource.pool());
        p.setInt(3, resource.units());
        p.setLong(4, resource.requestedAtMs());
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public List<PoolResourceRecord> poolResources() {
    return tx("load of pool resources", c -> {
      List<PoolResourceRecord> out = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT resource_id, pool, units, requested_at_ms FROM pool_resources ORDER BY resource_id")) {
        while (rs.next()) {
          out.add(new PoolResourceRecord(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4)));
        }
      }
      return out;
    });
  }

  @Override
  public boolean deletePoolResource(String resourceId) {
    return tx("delete of pool resource '" + resourceId + "'", c -> {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM pool_resources WHERE resource_id = ?")) {
        p.setString(1, resourceId);
        return p.executeUpdate() > 0;
      }
    });
  }

  @Override
  public DecisionRecord appendDecision(String scope, long atMs, String decision, int keep) {
    String op = "append of a decision to '" + scope + "'";
    if (scope == null || scope.isBlank() || decision == null || keep < 1) {
      throw new IllegalArgumentException(op + " refused: expected a non-blank scope, a decision text and keep >= 1, got " + keep);
    }
    return tx(op, c -> {
      long seq;
      try (PreparedStatement p = c.prepareStatement("SELECT COALESCE(MAX(seq), 0) FROM scaling_decisions WHERE scope = ?")) {
        p.setString(1, scope);
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          seq = rs.getLong(1) + 1;
        }
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO scaling_decisions (scope, seq, at_ms, decision) VALUES (?, ?, ?, ?)")) {
        p.setString(1, scope);
        p.setLong(2, seq);
        p.setLong(3, atMs);
        p.setString(4, decision);
        p.executeUpdate();
      }
      try (PreparedStatement p = c.prepareStatement("DELETE FROM scaling_decisions WHERE scope = ? AND seq <= ?")) {
        p.setString(1, scope);
        p.setLong(2, seq - keep);
        p.executeUpdate();
      }
      return new DecisionRecord(scope, seq, atMs, decision);
    });
  }

  @Override
  public List<DecisionRecord> decisions(String scope) {
    return tx("load of the decisions of '" + scope + "'", c -> {
      List<DecisionRecord> out = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement(
          "SELECT seq, at_ms, decision FROM scaling_decisions WHERE scope = ? ORDER BY seq")) {
        p.setString(1, scope);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            out.add(new DecisionRecord(scope, rs.getLong(1), rs.getLong(2), rs.getString(3)));
          }
        }
      }
      return out;
    });
  }

  @Override
  public List<OptimizerResourceRecord> optimizerResources() {
    return tx("load of optimizer resources", c -> {
      List<OptimizerResourceRecord> out = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT resource_id, group_name, threads, requested_at_ms FROM optimizer_resources ORDER BY resource_id")) {
        while (rs.next()) {
          out.add(new OptimizerResourceRecord(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getLong(4)));
        }
      }
      return out;
    });
  }

  @Override
  public boolean deleteOptimizerResource(String resourceId) {
    return tx("delete of optimizer resource '" + resourceId + "'", c -> {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM optimizer_resources WHERE resource_id = ?")) {
        p.setString(1, resourceId);
        return p.executeUpdate() > 0;
      }
    });
  }

  @Override
  public void putTableProperties(long tableId, String properties) {
    Objects.requireNonNull(properties, "properties");
    tx("store of the optimizing properties of table " + tableId, c -> {
      try (PreparedStatement p = c.prepareStatement(properties.isEmpty() ? "DELETE FROM optimizing_tables WHERE table_id = ?"
          : "INSERT INTO optimizing_tables (table_id, properties) VALUES (?, ?)"
              + " ON CONFLICT (table_id) DO UPDATE SET properties = excluded.properties")) {
        p.setLong(1, tableId);
        if (!properties.isEmpty()) {
          p.setString(2, properties);
        }
        p.executeUpdate();
      }
      return null;
    });
  }

  @Override
  public SortedMap<Long, String> tableProperties() {
    return tx("load of table optimizing properties", c -> {
      SortedMap<Long, String> out = new TreeMap<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT table_id, properties FROM optimizing_tables")) {
        while (rs.next()) {
          out.put(rs.getLong(1), rs.getString(2));
        }
      }
      return out;
    });
  }

  // ---------------------------------------------------------------- transactions and connections

  /** Runs {@code work} in one transaction: commits if it returns, rolls back if it throws. */
  private synchronized <T> T tx(String operation, Work<T> work) {
    if (closed) {
      throw new IllegalStateException(operation + " refused: meta store " + description + " is closed");
    }
    Connection c;
    try {
      c = connection();
    } catch (SQLException e) {
      throw failure(operation, e);
    }
    try {
      T result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException e) {
      rollback(c, e);
      throw failure(operation, e);
    } catch (RuntimeException | Error e) {
      rollback(c, e);
      throw e;
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Properties p = new Properties();
      p.putAll(properties);
      if (dialect == Dialect.SQLITE) {
        SQLiteConfig config = new SQLiteConfig(p);
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.enforceForeignKeys(true);
        config.setBusyTimeout(10_000);
        // Deferred (the default), not IMMEDIATE: the driver begins the next transaction right after each
        // commit, so IMMEDIATE would hold the write lock while idle and lock out every other connection.
        p = config.toProperties();
      }
      Connection c = DriverManager.getConnection(url, p);
      try {
        c.setAutoCommit(false);
        if (dialect == Dialect.POSTGRESQL) {
          c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        }
      } catch (SQLException e) {
        closeQuietly(c);
        throw e;
      }
      connection = c;
    }
    return connection;
  }

  private void rollback(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
    // A connection that no longer works is replaced by the next operation.
    boolean usable;
    try {
      usable = !c.isClosed() && (dialect == Dialect.SQLITE || c.isValid(5));
    } catch (SQLException e) {
      usable = false;
    }
    if (!usable) {
      LOG.warn("meta store {}: connection lost; the next operation reconnects", description);
      closeQuietly(c);
      connection = null;
    }
  }

  private MetaStoreException failure(String operation, SQLException e) {
    if (dialect == Dialect.SQLITE && isCorrupt(e)) {
      return new MetaStoreException(on(operation, "SQLite file " + file) + " refused: the file is not a SQLite database or is corrupt ("
          + e.getMessage() + "); restore it from a backup, or point the meta store at a new file", e);
    }
    String state = e.getSQLState();
    if (state != null && state.startsWith("08")) {
      return new MetaStoreException(on(operation, description) + " failed: cannot reach the database (" + e.getMessage()
          + "); check that it runs and that the URL, user and password are right", e);
    }
    return new MetaStoreException(on(operation, description) + " failed: " + e.getMessage(), e);
  }

  /** "opening meta store X" or "load on meta store X". */
  private static String on(String operation, String store) {
    return operation.equals(OPENING) ? "opening meta store " + store : operation + " on meta store " + store;
  }

  private static boolean isCorrupt(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        int primary = s.getErrorCode() & 0xff;
        if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (connection != null) {
      closeQuietly(connection);
      connection = null;
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing a meta store connection failed", e);
    }
  }

  // ---------------------------------------------------------------- URLs

  /** The database file of a SQLite URL; {@code null} for an in-memory database or a {@code file:} URI. */
  private static Path sqliteFile(String url) {
    String rest = stripParameters(url.substring(Dialect.SQLITE.prefix().length()));
    if (rest.isEmpty()) {
      throw new IllegalArgumentException("meta store URL '" + url + "' names no file: expected " + Dialect.URL_FORMS);
    }
    if (rest.equals(":memory:") || rest.startsWith("file:")) {
      return null;
    }
    return Path.of(rest).toAbsolutePath().normalize();
  }

  private static String stripParameters(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  private void createParentDirectory() {
    if (file != null && file.getParent() != null && !Files.isDirectory(file.getParent())) {
      try {
        Files.createDirectories(file.getParent());
      } catch (IOException e) {
        throw new MetaStoreException("opening meta store " + description + " failed: cannot create its directory "
            + file.getParent() + ": " + e, e);
      }
    }
  }
}

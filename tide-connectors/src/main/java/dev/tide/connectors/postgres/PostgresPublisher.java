package dev.tide.connectors.postgres;

import dev.tide.common.chunk.Op;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Schema;
import dev.tide.connectors.format.RowFormat;
import dev.tide.connectors.sink.Publisher;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Applies a sink actor's epochs to a PostgreSQL table: inserts and updates as
 * {@code INSERT ... ON CONFLICT (pk) DO UPDATE}, deletions as {@code DELETE ... WHERE pk}, batched,
 * in one transaction per publish that also sets the actor's row of the progress table
 * {@code (sink text primary key, epoch bigint)}. The progress row is locked first ({@code FOR
 * UPDATE}) and the publish skipped if it already holds {@code upToEpoch} or later, so a replay, or
 * a zombie instance of the same actor, writes nothing twice. TIMESTAMP columns are written as
 * {@code timestamp} values (UTC).
 */
final class PostgresPublisher implements Publisher {
  private final PostgresSinkOptions options;
  private final Schema schema;
  private final int[] key;
  private final int[] all;
  private final String sinkId;
  private final String upsertSql;
  private final String deleteSql;
  private Connection conn;

  PostgresPublisher(PostgresSinkOptions options, Schema schema, int[] key, String sinkId) {
    this.options = options;
    this.schema = schema;
    this.key = key;
    this.all = new int[schema.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    this.sinkId = sinkId;
    StringJoiner cols = new StringJoiner(", ");
    StringJoiner marks = new StringJoiner(", ");
    StringJoiner sets = new StringJoiner(", ");
    StringJoiner pk = new StringJoiner(", ");
    StringJoiner where = new StringJoiner(" AND ");
    for (int i = 0; i < schema.size(); i++) {
      String n = quote(schema.field(i).name());
      cols.add(n);
      marks.add("?");
      sets.add(n + " = EXCLUDED." + n);
    }
    for (int k : key) {
      pk.add(quote(schema.field(k).name()));
      where.add(quote(schema.field(k).name()) + " = ?");
    }
    boolean allKey = key.length == schema.size();
    this.upsertSql = "INSERT INTO " + options.table() + " (" + cols + ") VALUES (" + marks + ") ON CONFLICT (" + pk + ") DO "
        + (allKey ? "NOTHING" : "UPDATE SET " + sets);
    this.deleteSql = "DELETE FROM " + options.table() + " WHERE " + where;
  }

  private static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  @Override
  public long recover() {
    try {
      conn = DriverManager.getConnection(options.url(), options.user(), options.password());
      conn.setAutoCommit(false);
      // Sink actors start together: two concurrent CREATE TABLE IF NOT EXISTS of one table can both
      // try to insert its row type (a unique violation in pg_type), so creators take a lock on the name.
      try (PreparedStatement lock = conn.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
          Statement s = conn.createStatement()) {
        lock.setString(1, options.progressTable());
        lock.execute();
        s.execute("CREATE TABLE IF NOT EXISTS " + options.progressTable() + " (sink text PRIMARY KEY, epoch bigint NOT NULL)");
      }
      conn.commit();
      long e = lockedEpoch();
      conn.commit();
      return e;
    } catch (SQLException e) {
      throw failure("connecting", e);
    }
  }

  private long lockedEpoch() throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT epoch FROM " + options.progressTable() + " WHERE sink = ? FOR UPDATE")) {
      ps.setString(1, sinkId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  @Override
  public void publish(List<StagedRow> rows, long upToEpoch) {
    try {
      if (lockedEpoch() >= upToEpoch) {
        conn.rollback();
        return;
      }
      try (PreparedStatement up = conn.prepareStatement(upsertSql); PreparedStatement del = conn.prepareStatement(deleteSql)) {
        // Statements run in row order: a delete and a re-insert of one key must not swap places.
        List<StagedRow> run = new ArrayList<>();
        Boolean runIsDelete = null;
        for (StagedRow r : rows) {
          if (r.op() == Op.UPDATE_DELETE.code()) {
            continue; // the update's insert half, which follows, overwrites the row
          }
          boolean isDelete = !Op.isInsert(r.op());
          if (runIsDelete != null && runIsDelete != isDelete) {
            flush(run, runIsDelete, up, del);
          }
          runIsDelete = isDelete;
          run.add(r);
        }
        if (runIsDelete != null) {
          flush(run, runIsDelete, up, del);
        }
      }
      try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + options.progressTable()
          + " (sink, epoch) VALUES (?, ?) ON CONFLICT (sink) DO UPDATE SET epoch = EXCLUDED.epoch")) {
        ps.setString(1, sinkId);
        ps.setLong(2, upToEpoch);
        ps.executeUpdate();
      }
      conn.commit();
    } catch (SQLException e) {
      try {
        conn.rollback();
      } catch (SQLException ignored) {
        // the connection is gone; the failure below says why
      }
      throw failure("writing up to epoch " + upToEpoch, e);
    }
  }

  private void flush(List<StagedRow> run, boolean delete, PreparedStatement up, PreparedStatement del) throws SQLException {
    PreparedStatement ps = delete ? del : up;
    for (StagedRow r : run) {
      if (delete) {
        bind(ps, RowFormat.decodeJsonColumns(r.key(), schema, key), key);
      } else {
        bind(ps, RowFormat.decodeJsonColumns(r.value(), schema, all), all);
      }
      ps.addBatch();
    }
    ps.executeBatch();
    run.clear();
  }

  private void bind(PreparedStatement ps, Object[] values, int[] columns) throws SQLException {
    for (int i = 0; i < values.length; i++) {
      Object v = values[i];
      if (v != null && schema.type(columns[i]) == DataType.TIMESTAMP) {
        v = new Timestamp((Long) v);
      }
      ps.setObject(i + 1, v);
    }
  }

  private IllegalStateException failure(String what, SQLException e) {
    return new IllegalStateException("postgres sink " + sinkId + " (table " + options.table() + " at " + options.url() + "): " + what
        + " failed: " + e.getMessage() + "; the job recovers and retries", e);
  }

  @Override
  public void close() {
    try {
      if (conn != null) {
        conn.close();
      }
    } catch (SQLException ignored) {
      // closing a broken connection: nothing left to release
    }
  }
}

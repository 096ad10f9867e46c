package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.stream.Dml;
import dev.tide.proto.stream.DmlRow;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.Types;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code CREATE TABLE}, {@code INSERT}, {@code UPDATE} and {@code DELETE}: a table is a job whose table source emits
 * the rows statements write ({@link PlanBuilder#table}) into a materialized view with a changelog,
 * so views read and join it like any view ({@link UpstreamViews}), and {@code SELECT} reads its
 * committed rows. A write is checked against the committed rows (one row per primary key, as in
 * PostgreSQL), rides one barrier, and returns once its epoch committed. Writes are serialized by the
 * engine, so each sees the previous one's rows. Meant for small reference data: every write reads the
 * table's committed rows.
 */
final class Tables {
  private final SqlEngine engine;
  private final SqlCluster cluster;

  Tables(SqlEngine engine, SqlCluster cluster) {
    this.engine = engine;
    this.cluster = cluster;
  }

  /** {@code CREATE TABLE [IF NOT EXISTS] t (col type [PRIMARY KEY] [NOT NULL], ..., [PRIMARY KEY (a, ...)])}. */
  Result create(Tokens t) {
    boolean ifNotExists = t.accept("if", "not", "exists");
    int namePos = t.peek().position();
    String name = t.identifier("a table name");
    List<Field> fields = new ArrayList<>();
    List<String> pk = new ArrayList<>();
    int pkPos = 0;
    t.expect("(");
    do {
      if (t.accept("primary", "key")) {
        pkPos = t.peek().position();
        if (!pk.isEmpty()) {
          throw new SqlException(SqlException.SYNTAX, "create table '" + name + "' refused: two primary keys; declare one", pkPos);
        }
        t.expect("(");
        do {
          pk.add(t.identifier("a key column"));
        } while (t.accept(","));
        t.expect(")");
        continue;
      }
      int colPos = t.peek().position();
      String col = t.identifier("a column name");
      StringBuilder type = new StringBuilder(t.identifier("the type of column " + col));
      while (!t.atEnd() && !t.peek().text().equals(",") && !t.peek().text().equals(")") && !t.peek().ident().equals("primary")
          && !t.peek().ident().equals("not") && !t.peek().ident().equals("null")) {
        type.append(' ').append(t.next().text().toLowerCase(Locale.ROOT));
      }
      DataType dt = SqlEngine.typeNamed(type.toString());
      if (dt == null) {
        throw new SqlException(SqlException.DATATYPE_MISMATCH, "create table '" + name + "' refused: column '" + col + "' has type '"
            + type + "'; Tide's types: BIGINT, INT, DOUBLE, VARCHAR, TIMESTAMP, BOOLEAN", colPos);
      }
      if (fields.stream().anyMatch(f -> f.name().equals(col))) {
        throw new SqlException(SqlException.DUPLICATE_OBJECT, "create table '" + name + "' refused: column '" + col + "' is declared twice",
            colPos);
      }
      fields.add(new Field(col, dt));
      while (true) {
        if (t.accept("primary", "key")) {
          if (!pk.isEmpty()) {
            throw new SqlException(SqlException.SYNTAX, "create table '" + name + "' refused: two primary keys; declare one", colPos);
          }
          pk.add(col);
        } else if (!t.accept("not", "null") && !t.accept("null")) {
          break;
        }
      }
    } while (t.accept(","));
    t.expect(")");
    t.expectEnd();
    if (pk.isEmpty()) {
      throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: a table without a primary key; declare one, e.g. id BIGINT"
          + " PRIMARY KEY or PRIMARY KEY (a, b)", namePos);
    }
    Schema schema = new Schema(fields);
    int[] key = new int[pk.size()];
    for (int i = 0; i < key.length; i++) {
      key[i] = schema.indexOf(pk.get(i));
      if (key[i] < 0) {
        throw new SqlException(SqlException.UNDEFINED_COLUMN, "create table '" + name + "' refused: the primary key names '" + pk.get(i)
            + "', which is not a column; columns: " + schema.names(), pkPos);
      }
    }
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new SqlException(SqlException.SYNTAX, "table name '" + name + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)", namePos);
    }
    if (engine.exists(name)) {
      if (ifNotExists) {
        return Result.command("CREATE TABLE");
      }
      throw new SqlException(SqlException.DUPLICATE_OBJECT, "create table refused: '" + name + "' already exists", namePos);
    }
    PlanBuilder b = new PlanBuilder(name).withChangelogs();
    b.table(name, schema, key).materialize(name);
    Plan plan = b.build();
    try {
      cluster.create(plan);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, "create table '" + name + "' refused: " + e.getMessage());
    }
    try {
      engine.persist(new CatalogEntry(name, CatalogEntry.TABLE, t.sql(), List.of()), "create table");
    } catch (SqlException e) {
      cluster.drop(name);
      throw e;
    }
    return Result.command("CREATE TABLE");
  }

  /** {@code INSERT INTO t [(col, ...)] query}: the query's rows (VALUES or a SELECT) become rows of t. */
  Result insert(Tokens t) {
    int namePos = t.peek().position();
    String name = t.identifier("a table name");
    TableCatalog table = table(name, namePos, "insert");
    Schema schema = Types.schema(table.getColumnsList());
    int[] target;
    if (t.accept("(")) {
      List<Integer> cols = new ArrayList<>();
      do {
        int pos = t.peek().position();
        String c = t.identifier("a column name");
        int i = schema.indexOf(c);
        if (i < 0 || cols.contains(i)) {
          throw new SqlException(i < 0 ? SqlException.UNDEFINED_COLUMN : SqlException.SYNTAX, "insert into '" + name + "' refused: "
              + (i < 0 ? "no column '" + c + "'; columns: " + schema.names() : "column '" + c + "' is named twice"), pos);
        }
        cols.add(i);
      } while (t.accept(","));
      t.expect(")");
      target = cols.stream().mapToInt(Integer::intValue).toArray();
    } else {
      target = java.util.stream.IntStream.range(0, schema.size()).toArray();
    }
    int offset = t.restOffset();
    Result values;
    try {
      values = engine.query(t.sql().substring(offset));
    } catch (SqlException e) {
      throw e.shifted(offset);
    }
    if (values.columns().size() != target.length) {
      throw new SqlException(SqlException.SYNTAX, "insert into '" + name + "' refused: the query gives " + values.columns().size()
          + " columns for " + target.length + " target columns", offset + 1);
    }
    int[] pk = Types.ints(table.getPkList());
    Set<List<Object>> keys = new HashSet<>();
    for (Object[] row : cluster.scan(name)) {
      keys.add(key(row, pk));
    }
    Dml.Builder dml = Dml.newBuilder();
    for (Object[] given : values.rows()) {
      Object[] row = new Object[schema.size()];
      for (int i = 0; i < target.length; i++) {
        row[target[i]] = coerce(given[i], schema.field(target[i]), name);
      }
      for (int k : pk) {
        if (row[k] == null) {
          throw new SqlException("23502", "insert into '" + name + "' refused: key column '" + schema.field(k).name()
              + "' is null in row " + Arrays.toString(given) + "; nothing was written");
        }
      }
      if (!keys.add(key(row, pk))) {
        throw new SqlException("23505", "insert into '" + name + "' refused: a row with key " + key(row, pk) + " exists"
            + " (duplicate key value violates the primary key); delete it first; nothing was written");
      }
      dml.addRows(row(row, schema, false));
    }
    write(name, dml.build(), "insert");
    return Result.command("INSERT 0 " + values.rows().size());
  }

  /** {@code DELETE FROM t [WHERE condition]}: the committed rows of t that satisfy the condition are deleted. */
  Result delete(Tokens t) {
    int namePos = t.peek().position();
    String name = t.identifier("a table name");
    TableCatalog table = table(name, namePos, "delete");
    Schema schema = Types.schema(table.getColumnsList());
    String select = "SELECT * FROM \"" + name + "\"";
    int shift = 0;
    if (t.accept("where")) {
      int offset = t.restOffset();
      select += " WHERE ";
      shift = offset - select.length();
      select += t.sql().substring(offset);
    } else {
      t.expectEnd();
    }
    Result rows;
    try {
      rows = engine.query(select);
    } catch (SqlException e) {
      throw e.shifted(shift);
    }
    if (rows.rows().isEmpty()) {
      return Result.command("DELETE 0");
    }
    Dml.Builder dml = Dml.newBuilder();
    for (Object[] row : rows.rows()) {
      dml.addRows(row(row, schema, true));
    }
    write(name, dml.build(), "delete");
    return Result.command("DELETE " + rows.rows().size());
  }

  /**
   * {@code UPDATE t SET col = expr, ... [WHERE condition]}: each committed row that satisfies the
   * condition is replaced by the row the expressions give (evaluated over the old row); a changed
   * key must stay unique.
   */
  Result update(Tokens t) {
    int namePos = t.peek().position();
    String name = t.identifier("a table name");
    TableCatalog table = table(name, namePos, "update");
    Schema schema = Types.schema(table.getColumnsList());
    t.expect("set");
    String[] exprs = new String[schema.size()];
    do {
      int pos = t.peek().position();
      String c = t.identifier("a column name");
      int i = schema.indexOf(c);
      if (i < 0 || exprs[i] != null) {
        throw new SqlException(i < 0 ? SqlException.UNDEFINED_COLUMN : SqlException.SYNTAX, "update of '" + name + "' refused: "
            + (i < 0 ? "no column '" + c + "'; columns: " + schema.names() : "column '" + c + "' is set twice"), pos);
      }
      t.expect("=");
      int start = t.restOffset();
      int depth = 0;
      while (!t.atEnd() && !(depth == 0 && (t.peek().text().equals(",") || t.peek().ident().equals("where")))) {
        depth += t.peek().text().equals("(") ? 1 : t.peek().text().equals(")") ? -1 : 0;
        t.next();
      }
      exprs[i] = t.sql().substring(start, t.atEnd() ? t.sql().length() : t.restOffset()).trim();
      if (exprs[i].isEmpty()) {
        throw t.error("expected an expression for column '" + c + "'");
      }
    } while (t.accept(","));
    String where = "";
    if (t.accept("where")) {
      where = " WHERE " + t.sql().substring(t.restOffset());
    } else {
      t.expectEnd();
    }
    StringBuilder select = new StringBuilder("SELECT ");
    for (int i = 0; i < schema.size(); i++) {
      select.append('"').append(schema.field(i).name()).append("\", ");
    }
    for (int i = 0; i < schema.size(); i++) {
      select.append(i > 0 ? ", " : "").append(exprs[i] == null ? "\"" + schema.field(i).name() + "\"" : "(" + exprs[i] + ")");
    }
    select.append(" FROM \"").append(name).append('"').append(where);
    Result rows = engine.query(select.toString());
    int n = schema.size();
    int[] pk = Types.ints(table.getPkList());
    Set<List<Object>> keys = new HashSet<>();
    for (Object[] row : cluster.scan(name)) {
      keys.add(key(row, pk));
    }
    List<Object[]> olds = new ArrayList<>();
    List<Object[]> news = new ArrayList<>();
    for (Object[] r : rows.rows()) {
      Object[] old = Arrays.copyOf(r, n);
      Object[] neu = new Object[n];
      for (int i = 0; i < n; i++) {
        neu[i] = coerce(r[n + i], schema.field(i), name);
      }
      keys.remove(key(old, pk));
      olds.add(old);
      news.add(neu);
    }
    Dml.Builder dml = Dml.newBuilder();
    List<DmlRow> inserts = new ArrayList<>();
    for (int r = 0; r < olds.size(); r++) {
      Object[] neu = news.get(r);
      for (int k : pk) {
        if (neu[k] == null) {
          throw new SqlException("23502", "update of '" + name + "' refused: key column '" + schema.field(k).name()
              + "' would be null; nothing was written");
        }
      }
      if (!keys.add(key(neu, pk))) {
        throw new SqlException("23505", "update of '" + name + "' refused: two rows would have key " + key(neu, pk)
            + " (duplicate key value violates the primary key); nothing was written");
      }
      if (!Arrays.equals(olds.get(r), neu)) {
        dml.addRows(row(olds.get(r), schema, true)); // every delete before the inserts: keys may move between rows
        inserts.add(row(neu, schema, false));
      }
    }
    dml.addAllRows(inserts);
    if (dml.getRowsCount() > 0) {
      write(name, dml.build(), "update");
    }
    return Result.command("UPDATE " + olds.size());
  }

  private TableCatalog table(String name, int pos, String what) {
    CatalogEntry e = cluster.catalog().get(name);
    TableCatalog t = e == null || !e.kind().equals(CatalogEntry.TABLE) ? null : engine.view(name);
    if (t == null) {
      throw new SqlException(SqlException.UNDEFINED_TABLE, what + " refused: unknown table '" + name + "'"
          + (e != null || engine.view(name) != null ? " ('" + name + "' is a " + (e == null ? "view" : e.kind())
              + "; only tables take INSERT, UPDATE and DELETE)" : ""), pos);
    }
    return t;
  }

  private void write(String name, Dml dml, String what) {
    try {
      cluster.write(name, dml);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, what + " on '" + name + "' failed: " + e.getMessage());
    }
  }

  private static List<Object> key(Object[] row, int[] pk) {
    List<Object> k = new ArrayList<>();
    for (int i : pk) {
      k.add(row[i]);
    }
    return k;
  }

  private static DmlRow row(Object[] row, Schema schema, boolean delete) {
    DmlRow.Builder r = DmlRow.newBuilder().setDelete(delete);
    for (int i = 0; i < schema.size(); i++) {
      r.addValues(ExprResolver.literal(row[i], schema.type(i)));
    }
    return r.build();
  }

  /** {@code v} (a query result value) as a value of column {@code f}, or a 42804 error naming both. */
  static Object coerce(Object v, Field f, String table) {
    if (v == null) {
      return null;
    }
    Object out = switch (f.type()) {
      case BIGINT -> v instanceof Integer || v instanceof Long ? ((Number) v).longValue()
          : v instanceof Double d && d == Math.rint(d) ? (Object) d.longValue() : null;
      case INT -> v instanceof Integer ? v : v instanceof Long l && l == l.intValue() ? (Object) l.intValue() : null;
      case DOUBLE -> v instanceof Number n ? (Object) n.doubleValue() : null;
      case VARCHAR -> v instanceof String ? v : null;
      case BOOLEAN -> v instanceof Boolean ? v : null;
      case TIMESTAMP -> v instanceof Long ? v : v instanceof String s ? timestamp(s) : null;
    };
    if (out == null) {
      throw new SqlException(SqlException.DATATYPE_MISMATCH, "insert into '" + table + "' refused: column '" + f.name() + "' is "
          + f.type().sqlName() + ", the value " + (v instanceof String ? "'" + v + "'" : v) + " is not; cast it, e.g. CAST(... AS "
          + f.type().sqlName() + ")");
    }
    return out;
  }

  private static Object timestamp(String s) {
    try {
      return Timestamp.valueOf(s).toLocalDateTime().toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}

package dev.tide.sql;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.admin.ActorView;
import dev.tide.proto.admin.FragmentView;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.plan.PlanException;
import dev.tide.stream.plan.SourceCatalog;
import dev.tide.stream.plan.Types;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.apache.calcite.tools.RelConversionException;
import org.apache.calcite.tools.ValidationException;

/**
 * Runs SQL statements against a cluster. Tide parses its own statements (CREATE SOURCE, CREATE
 * TABLE, CREATE SINK, CREATE MATERIALIZED VIEW's head, INSERT/UPDATE/DELETE heads ({@link Tables}), SHOW,
 * DESCRIBE, EXPLAIN, DROP, ALTER, SET); queries are parsed, validated and planned by Calcite: a
 * view's query is lowered onto Tide's plan IR ({@link StreamPlanner}, views over views through
 * {@link UpstreamViews}), a SELECT is answered by Calcite over the committed rows of views and tables.
 *
 * <p>Every statement is validated completely before anything changes. The catalog (sources, tables,
 * views, sinks) is the cluster's, durable in its meta store ({@link SqlCluster#catalog()}); this engine
 * keeps none of it, so engines of one cluster agree and survive a meta restart; views and tables are
 * also the cluster's jobs. Thread-safety: statements that change the catalog or write tables are
 * serialized on this object; queries run concurrently.
 */
public final class SqlEngine {
  /** One statement of a client's text and its offset in it. */
  public record Statement(String text, int offset) {}

  private final SqlCluster cluster;
  private final int vnodeCount;
  private final Tables tables;
  /** Parsed source statements, by statement text (the durable catalog keeps the text). */
  private final Map<String, SourceDef> parsedSources = new java.util.concurrent.ConcurrentHashMap<>();

  static {
    try {
      Class.forName("org.apache.calcite.jdbc.Driver");
    } catch (ClassNotFoundException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public SqlEngine(SqlCluster cluster, int vnodeCount) {
    this.cluster = cluster;
    this.vnodeCount = vnodeCount;
    this.tables = new Tables(this, cluster);
  }

  /** psql's \d, \dt, \dm and \d NAME, answered from the catalog. */
  private final PsqlDescribe psqlDescribe = new PsqlDescribe(this::execute);

  /** Runs one statement (no trailing semicolon needed). */
  public Result execute(String sql) {
    Tokens t = new Tokens(sql);
    if (t.atEnd()) {
      return Result.command("");
    }
    if (t.accept("create", "source")) {
      return createSource(t);
    }
    if (t.accept("create", "materialized", "view")) {
      return createView(t);
    }
    if (t.accept("create", "sink")) {
      return createSink(t);
    }
    if (t.accept("create", "table")) {
      synchronized (this) {
        return tables.create(t);
      }
    }
    if (t.accept("insert", "into")) {
      synchronized (this) {
        return tables.insert(t);
      }
    }
    if (t.accept("delete", "from")) {
      synchronized (this) {
        return tables.delete(t);
      }
    }
    if (t.accept("update")) {
      synchronized (this) {
        return tables.update(t);
      }
    }
    if (t.accept("show")) {
      return show(t);
    }
    if (t.accept("describe")) {
      return describeObject(t);
    }
    if (t.accept("explain")) {
      return explain(t);
    }
    if (t.accept("drop")) {
      return drop(t);
    }
    if (t.accept("alter", "materialized", "view")) {
      return alter(t);
    }
    if (t.accept("set")) {
      return Result.command("SET");
    }
    if (t.accept("begin") || t.accept("start", "transaction")) {
      return Result.command("BEGIN");
    }
    if (t.accept("commit") || t.accept("end")) {
      return Result.command("COMMIT");
    }
    if (t.accept("rollback")) {
      return Result.command("ROLLBACK");
    }
    String first = t.peek().ident();
    Optional<Result> psql = psqlDescribe.answer(sql);
    if (psql.isPresent()) {
      return psql.get();
    }
    if (first.equals("select") || first.equals("with") || first.equals("values") || t.peek().text().equals("(")) {
      return query(sql);
    }
    if (first.equals("create") || first.equals("insert") || first.equals("delete") || first.equals("update")) {
      throw SqlException.notSupported(first.toUpperCase(Locale.ROOT) + " " + t.peek(1).text().toUpperCase(Locale.ROOT)
          + " (Tide takes CREATE SOURCE, CREATE TABLE, CREATE MATERIALIZED VIEW, CREATE SINK, INSERT INTO, UPDATE and DELETE FROM)");
    }
    throw t.error("unknown statement; see docs/sql.md for the statements Tide takes");
  }

  /** The columns {@code sql} answers without running it, or null when it answers none. */
  public List<Column> describe(String sql) {
    Tokens t = new Tokens(sql);
    String first = t.peek().ident();
    Optional<Result> psql = psqlDescribe.answer(sql);
    if (psql.isPresent()) {
      return psql.get().columns();
    }
    if (first.equals("select") || first.equals("with") || first.equals("values")) {
      try (Planner p = planner()) {
        RelDataType type = p.validateAndGetType(parse(p, sql)).right;
        return columns(type);
      } catch (ValidationException e) {
        throw validationError(e, sql);
      }
    }
    if (first.equals("show") || first.equals("describe") || first.equals("explain")) {
      return execute(sql).columns();
    }
    return null;
  }

  // ---- CREATE SOURCE ----

  private static final Pattern INTERVAL = Pattern.compile("(\\d+)");

  private synchronized Result createSource(Tokens t) {
    boolean ifNotExists = t.accept("if", "not", "exists");
    int namePos = t.peek().position();
    SourceDef def = parseSource(t);
    if (exists(def.name())) {
      if (ifNotExists) {
        return Result.command("CREATE SOURCE");
      }
      throw new SqlException(SqlException.DUPLICATE_OBJECT, "create source refused: '" + def.name() + "' already exists", namePos);
    }
    persist(new CatalogEntry(def.name(), CatalogEntry.SOURCE, def.sql(), List.of()), "create source");
    return Result.command("CREATE SOURCE");
  }

  /** A source's definition from {@code CREATE SOURCE [IF NOT EXISTS]}'s name on; validates everything, changes nothing. */
  static SourceDef parseSource(Tokens t) {
    String name = t.identifier("a source name");
    List<String[]> cols = new ArrayList<>();
    List<Integer> colPos = new ArrayList<>();
    String wmColumn = null;
    long wmDelay = 0;
    int wmPos = 0;
    if (t.accept("(")) {
      do {
        if (t.accept("watermark", "for")) {
          wmPos = t.peek().position();
          wmColumn = t.identifier("the watermark's time column");
          t.expect("as");
          String again = t.identifier("the watermark expression, e.g. date_time - INTERVAL '4' SECOND");
          if (!again.equals(wmColumn)) {
            throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: a watermark expression on '" + again
                + "'; write " + wmColumn + " - INTERVAL 'n' SECOND", t.peek().position());
          }
          if (t.accept("-")) {
            t.expect("interval");
            Matcher m = INTERVAL.matcher(t.string("the interval"));
            if (!m.matches()) {
              throw t.error("the interval must be a whole number, e.g. INTERVAL '4' SECOND");
            }
            long n = Long.parseLong(m.group(1));
            String unit = t.identifier("SECOND, MILLISECOND or MINUTE");
            wmDelay = switch (unit) {
              case "second", "seconds" -> n * 1000;
              case "millisecond", "milliseconds" -> n;
              case "minute", "minutes" -> n * 60_000;
              default -> throw new SqlException(SqlException.SYNTAX, "unknown interval unit '" + unit
                  + "'; use SECOND, MILLISECOND or MINUTE", t.peek().position());
            };
          }
        } else {
          colPos.add(t.peek().position());
          String c = t.identifier("a column name");
          StringBuilder type = new StringBuilder(t.identifier("the type of column " + c));
          while (!t.peek().text().equals(",") && !t.peek().text().equals(")") && !t.atEnd()) {
            type.append(' ').append(t.next().text().toLowerCase(Locale.ROOT));
          }
          cols.add(new String[] {c, type.toString()});
        }
      } while (t.accept(","));
      t.expect(")");
    }
    Map<String, String> with = withOptions(t);
    t.expectEnd();

    String connector = with.remove("connector");
    if (connector == null) {
      throw new SqlException(SqlException.INVALID_PARAMETER, "create source '" + name + "' refused: WITH needs connector = 'nexmark' or 'kafka'");
    }
    if (!connector.equalsIgnoreCase("nexmark")) {
      List<ConnectorSpecs.Declared> declared = new ArrayList<>();
      for (int i = 0; i < cols.size(); i++) {
        declared.add(new ConnectorSpecs.Declared(cols.get(i)[0], cols.get(i)[1], colPos.get(i)));
      }
      return connectorSource(name, connector.toLowerCase(Locale.ROOT), with, declared, wmColumn, wmDelay, t.sql());
    }
    String table = with.remove("nexmark.table.type");
    if (table == null) {
      throw new SqlException(SqlException.INVALID_PARAMETER, "create source '" + name
          + "' refused: WITH needs nexmark.table.type = 'bid', 'auction' or 'person'");
    }
    Map<String, String> options = new TreeMap<>();
    with.forEach((k, v) -> options.put(k.startsWith("nexmark.") ? k.substring("nexmark.".length()) : k, v));
    SourceCatalog.SourceInfo info;
    try {
      info = SourceCatalog.describe(connector.toLowerCase(Locale.ROOT), table.toLowerCase(Locale.ROOT), options);
    } catch (PlanException e) {
      throw new SqlException(SqlException.INVALID_PARAMETER, "create source '" + name + "' refused: " + e.getMessage());
    }
    Schema schema = info.schema();
    List<Field> fields = new ArrayList<>();
    if (cols.isEmpty()) {
      fields.addAll(schema.fields());
    }
    for (int i = 0; i < cols.size(); i++) {
      String c = cols.get(i)[0];
      int idx = schema.indexOf(c);
      if (idx < 0) {
        throw new SqlException(SqlException.UNDEFINED_COLUMN, "create source '" + name + "' refused: nexmark table '" + table
            + "' has no column '" + c + "'; its columns: " + schema.names(), colPos.get(i));
      }
      DataType declared = typeNamed(cols.get(i)[1]);
      if (declared != schema.type(idx)) {
        throw new SqlException(SqlException.DATATYPE_MISMATCH, "create source '" + name + "' refused: column '" + c + "' is "
            + schema.type(idx).sqlName() + " in nexmark table '" + table + "', declared " + cols.get(i)[1], colPos.get(i));
      }
      fields.add(schema.field(idx));
    }
    if (wmColumn != null) {
      String wc = wmColumn;
      if (fields.stream().noneMatch(f -> f.name().equals(wc) && f.type() == DataType.TIMESTAMP)) {
        throw new SqlException(SqlException.UNDEFINED_COLUMN, "create source '" + name + "' refused: the watermark column '" + wmColumn
            + "' must be a timestamp column of the source", wmPos);
      }
    }
    return new SourceDef(name, connector.toLowerCase(Locale.ROOT), table.toLowerCase(Locale.ROOT), options, List.copyOf(fields),
        wmColumn, wmDelay, t.sql());
  }

  /** {@code WITH ( key = value, ... )}: keys lower-cased, joined across '.' and '-'. */
  private static Map<String, String> withOptions(Tokens t) {
    Map<String, String> with = new LinkedHashMap<>();
    t.expect("with");
    t.expect("(");
    do {
      StringBuilder key = new StringBuilder(t.identifier("an option name"));
      while (t.accept(".") || t.accept("-")) {
        key.append(t.peek(-1).text()).append(t.identifier("an option name"));
      }
      t.expect("=");
      Tokens.Token v = t.next();
      if (v.kind() != Tokens.Kind.STRING && v.kind() != Tokens.Kind.NUMBER && v.kind() != Tokens.Kind.WORD) {
        throw new SqlException(SqlException.SYNTAX, "syntax error: option '" + key + "' needs a value, e.g. '1000'", v.position());
      }
      with.put(key.toString().toLowerCase(Locale.ROOT), v.text());
    } while (t.accept(","));
    t.expect(")");
    return with;
  }

  /** A source of an external connector (kafka): its WITH options mapped by {@link ConnectorSpecs}, checked by the connector. */
  private static SourceDef connectorSource(String name, String connector, Map<String, String> with,
      List<ConnectorSpecs.Declared> declared, String wmColumn, long wmDelay, String sql) {
    Map<String, String> options = ConnectorSpecs.sourceOptions(name, connector, with, declared, wmColumn, wmDelay);
    SourceCatalog.SourceInfo info = ConnectorSpecs.describeSource(name, connector, options, !declared.isEmpty());
    return new SourceDef(name, connector, name, options, info.schema().fields(), wmColumn, wmDelay, sql);
  }

  static DataType typeNamed(String type) {
    String t = type.replaceAll("\\(.*\\)", "").trim();
    return switch (t) {
      case "bigint", "int8" -> DataType.BIGINT;
      case "int", "integer", "int4" -> DataType.INT;
      case "varchar", "text", "character varying", "string" -> DataType.VARCHAR;
      case "timestamp", "timestamp without time zone" -> DataType.TIMESTAMP;
      case "double", "double precision", "float8" -> DataType.DOUBLE;
      case "boolean", "bool" -> DataType.BOOLEAN;
      default -> null;
    };
  }

  boolean exists(String name) {
    return cluster.catalog().containsKey(name) || view(name) != null;
  }

  // ---- CREATE SINK ----

  /**
   * {@code CREATE SINK k FROM v WITH (connector = 'kafka' | 'postgres', ...)}: a job named {@code k}
   * that reads view {@code v} as a view over a view does ({@link UpstreamViews}: its committed rows,
   * then its changelog), or reads source {@code v}, and ends in the connector's sink. So the sink
   * writes what {@code v} holds, computed once, not a second run of {@code v}'s query. The sink is a
   * catalog record that depends on {@code v}. {@code CREATE SINK k AS SELECT ... WITH (...)} runs
   * the query in the sink's own job, as a view would, and depends on what the query reads.
   */
  private synchronized Result createSink(Tokens t) {
    boolean ifNotExists = t.accept("if", "not", "exists");
    int namePos = t.peek().position();
    String name = t.identifier("a sink name");
    if (t.accept("as")) {
      int offset = t.restOffset();
      String query = t.sql().substring(offset, queryEnd(t) - 1);
      Map<String, String> with = withOptions(t);
      t.expectEnd();
      return createSinkJob(t.sql(), name, namePos, ifNotExists, with, query, offset, null);
    }
    t.expect("from");
    int fromPos = t.peek().position();
    String from = t.identifier("the materialized view or source the sink reads");
    Map<String, String> with = withOptions(t);
    t.expectEnd();
    Map<String, CatalogEntry> views = snapshotViews();
    Map<String, SourceDef> sources = snapshotSources();
    if (!views.containsKey(from) && !sources.containsKey(from)) {
      throw new SqlException(SqlException.UNDEFINED_TABLE, "create sink '" + name + "' refused: '" + from
          + "' is no materialized view created by SQL and no source; views: " + views.keySet() + ", sources: " + sources.keySet(), fromPos);
    }
    return createSinkJob(t.sql(), name, namePos, ifNotExists, with, "SELECT * FROM " + from, 0, from);
  }

  /**
   * Moves {@code t} to the statement's last top-level {@code WITH (}, the sink's options after its
   * query, and returns that keyword's position.
   */
  private static int queryEnd(Tokens t) {
    int depth = 0;
    int with = -1;
    for (int k = 0; t.peek(k).kind() != Tokens.Kind.END; k++) {
      Tokens.Token x = t.peek(k);
      if (x.kind() == Tokens.Kind.SYMBOL && x.text().equals("(")) {
        depth++;
      } else if (x.kind() == Tokens.Kind.SYMBOL && x.text().equals(")")) {
        depth--;
      } else if (depth == 0 && x.kind() == Tokens.Kind.WORD && x.ident().equals("with") && t.peek(k + 1).text().equals("(")) {
        with = k;
      }
    }
    if (with < 0) {
      throw t.error("CREATE SINK ... AS SELECT ... needs WITH (connector = 'kafka' | 'postgres', ...) after the query");
    }
    int position = t.peek(with).position();
    for (int k = 0; k < with; k++) {
      t.next();
    }
    return position;
  }

  /**
   * The job of sink {@code name}: {@code query} ended in the connector's sink, recorded as depending on
   * {@code from} (the view or source a {@code FROM} sink follows), or else on what the query reads.
   */
  private Result createSinkJob(String sql, String name, int namePos, boolean ifNotExists, Map<String, String> with, String query,
      int offset, String from) {
    String connector = with.remove("connector");
    if (connector == null) {
      throw new SqlException(SqlException.INVALID_PARAMETER, "create sink '" + name + "' refused: WITH needs connector = 'kafka' or 'postgres'");
    }
    if (exists(name)) {
      if (ifNotExists) {
        return Result.command("CREATE SINK");
      }
      throw new SqlException(SqlException.DUPLICATE_OBJECT, "create sink refused: '" + name + "' already exists", namePos);
    }
    Map<String, String> options = ConnectorSpecs.sinkOptions(with);
    String c = connector.toLowerCase(Locale.ROOT);
    StreamPlanner.Planned planned = plan(name, query, offset, s -> {
      try {
        s.sink(c, options);
      } catch (PlanException e) {
        throw new SqlException(SqlException.INVALID_PARAMETER, "create sink '" + name + "' refused: " + e.getMessage());
      }
    });
    List<String> dependsOn = from != null ? List.of(from) : List.copyOf(planned.sources());
    createJob(planned, new CatalogEntry(name, CatalogEntry.SINK, sql, dependsOn), "create sink");
    return Result.command("CREATE SINK");
  }

  // ---- CREATE MATERIALIZED VIEW ----

  private synchronized Result createView(Tokens t) {
    int namePos = t.peek().position();
    String name = t.identifier("a view name");
    t.expect("as");
    int offset = t.restOffset();
    String query = t.sql().substring(offset);
    if (exists(name)) {
      throw new SqlException(SqlException.DUPLICATE_OBJECT, "create materialized view refused: '" + name + "' already exists", namePos);
    }
    StreamPlanner.Planned planned = planView(name, query, offset);
    createJob(planned, new CatalogEntry(name, CatalogEntry.VIEW, t.sql(), List.copyOf(planned.sources())), "create materialized view");
    return Result.command("CREATE MATERIALIZED VIEW");
  }

  /** Starts the job of a view or sink and records it in the catalog; a failed record drops the job again. */
  private void createJob(StreamPlanner.Planned planned, CatalogEntry entry, String what) {
    try {
      cluster.create(planned.plan());
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, what + " '" + entry.name() + "' refused: " + e.getMessage());
    }
    try {
      persist(entry, what);
    } catch (SqlException e) {
      cluster.drop(entry.name()); // the view or sink is its job: nothing is left behind
      throw e;
    }
  }

  private StreamPlanner.Planned planView(String name, String query, int offset) {
    return plan(name, query, offset, s -> s.materialize(name));
  }

  /** The plan of job {@code name} running {@code query}, its output stream ended by {@code end}. */
  private StreamPlanner.Planned plan(String name, String query, int offset, java.util.function.Consumer<dev.tide.stream.plan.PlanBuilder.Stream> end) {
    return plan(name, query, offset, snapshotSources(), viewJobs(), end);
  }

  /**
   * The plan of job {@code name} running {@code query} over {@code sources} and the views of
   * {@code viewJobs} (the job of each view, by view name), its output stream ended by {@code end}; {@code offset} is the query's offset
   * in the statement, for error positions.
   */
  static StreamPlanner.Planned plan(String name, String query, int offset, Map<String, SourceDef> sources,
      Map<String, JobDefinition> viewJobs, java.util.function.Consumer<dev.tide.stream.plan.PlanBuilder.Stream> end) {
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new SqlException(SqlException.SYNTAX, "view name '" + name + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    }
    String body = StreamPlanner.withoutEmit(query);
    List<TableCatalog> views = new ArrayList<>();
    viewJobs.forEach((view, job) -> job.getTablesList().stream().filter(tc -> tc.getIsMv() && tc.getName().equals(view))
        .forEach(views::add));
    try (Planner p = planner(sources, views)) {
      SqlNode validated;
      try {
        validated = p.validate(parse(p, body));
      } catch (ValidationException e) {
        throw validationError(e, body);
      }
      RelRoot root = p.rel(validated);
      return StreamPlanner.plan(name, root.rel, root.validatedRowType.getFieldNames(), sources, viewJobs, query,
          StreamPlanner.emitsOnWindowClose(query), end);
    } catch (SqlException e) {
      throw e.shifted(offset);
    } catch (RelConversionException e) {
      throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + e.getMessage());
    }
  }

  // ---- queries over views ----

  Result query(String sql) {
    Map<String, SourceDef> known = snapshotSources();
    try (Planner p = planner()) {
      RelRoot root = p.rel(p.validate(parse(p, sql)));
      for (org.apache.calcite.plan.RelOptTable t : org.apache.calcite.plan.RelOptUtil.findAllTables(root.rel)) {
        String name = org.apache.calcite.util.Util.last(t.getQualifiedName());
        if (known.containsKey(name)) {
          throw SqlException.notSupported("SELECT from source '" + name + "', a stream; create a materialized view over it"
              + " and select from the view");
        }
      }
    } catch (ValidationException e) {
      throw validationError(e, sql);
    } catch (RelConversionException e) {
      throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + e.getMessage());
    }
    Properties info = new Properties();
    info.setProperty("quoting", "DOUBLE_QUOTE");
    info.setProperty("unquotedCasing", "TO_LOWER");
    info.setProperty("quotedCasing", "UNCHANGED");
    info.setProperty("caseSensitive", "true");
    info.setProperty("conformance", "LENIENT");
    info.setProperty("timeZone", "UTC");
    info.setProperty("typeSystem", Schemas.PgTypeSystem.class.getName());
    try (Connection c = DriverManager.getConnection("jdbc:calcite:", info)) {
      addViews(c.unwrap(CalciteConnection.class).getRootSchema());
      try (java.sql.Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
        ResultSetMetaData md = rs.getMetaData();
        List<Column> cols = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          cols.add(new Column(StreamPlanner.columnName(md.getColumnLabel(i), i - 1), jdbcType(md.getColumnType(i))));
        }
        List<Object[]> rows = new ArrayList<>();
        while (rs.next()) {
          Object[] row = new Object[cols.size()];
          for (int i = 0; i < row.length; i++) {
            row[i] = value(rs.getObject(i + 1), cols.get(i).type());
          }
          rows.add(row);
        }
        return Result.rows(cols, rows);
      }
    } catch (SQLException e) {
      SqlException s = unwrap(e, sql);
      throw s;
    }
  }

  private SqlException unwrap(Throwable e, String sql) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof CalciteContextException cc) {
        return contextError(cc, sql);
      }
      if (c instanceof SqlException s) {
        return s;
      }
    }
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return new SqlException(SqlException.INTERNAL, "query failed: " + root.getMessage());
  }

  private static DataType jdbcType(int t) {
    return switch (t) {
      case java.sql.Types.BOOLEAN, java.sql.Types.BIT -> DataType.BOOLEAN;
      case java.sql.Types.TINYINT, java.sql.Types.SMALLINT, java.sql.Types.INTEGER -> DataType.INT;
      case java.sql.Types.BIGINT -> DataType.BIGINT;
      case java.sql.Types.DOUBLE, java.sql.Types.FLOAT, java.sql.Types.REAL, java.sql.Types.DECIMAL, java.sql.Types.NUMERIC -> DataType.DOUBLE;
      case java.sql.Types.TIMESTAMP, java.sql.Types.TIMESTAMP_WITH_TIMEZONE -> DataType.TIMESTAMP;
      default -> DataType.VARCHAR;
    };
  }

  private static Object value(Object v, DataType t) {
    if (v == null) {
      return null;
    }
    return switch (t) {
      case BOOLEAN -> v;
      case INT -> ((Number) v).intValue();
      case BIGINT -> ((Number) v).longValue();
      case DOUBLE -> ((Number) v).doubleValue();
      case TIMESTAMP -> v instanceof Timestamp ts ? ts.getTime() : ((Number) v).longValue();
      case VARCHAR -> v.toString();
    };
  }

  private static List<Column> columns(RelDataType type) {
    List<Column> out = new ArrayList<>();
    for (RelDataTypeField f : type.getFieldList()) {
      DataType t = Schemas.tideType(f.getType().getSqlTypeName());
      out.add(new Column(StreamPlanner.columnName(f.getName(), f.getIndex()), t == null ? DataType.VARCHAR : t));
    }
    return out;
  }

  /** The views as Calcite tables that read their committed rows when a query scans them. */
  private void addViews(SchemaPlus schema) {
    for (TableCatalog v : allViews().values()) {
      List<Field> fields = new ArrayList<>();
      for (int i = 0; i < v.getVisibleColumns(); i++) {
        fields.add(new Field(v.getColumns(i).getName(), Types.of(v.getColumns(i).getType())));
      }
      schema.add(v.getName(), new Schemas.ViewTable(fields, () -> cluster.scan(v.getName())));
    }
  }

  private Planner planner() {
    return planner(snapshotSources(), allViews().values());
  }

  /** A Calcite planner over {@code sources} and {@code views} (their rows not readable: for planning). */
  private static Planner planner(Map<String, SourceDef> sources, java.util.Collection<TableCatalog> views) {
    SchemaPlus root = Frameworks.createRootSchema(true);
    sources.values().forEach(s -> Schemas.addSource(root, s));
    for (TableCatalog v : views) {
      List<Field> fields = new ArrayList<>();
      for (int i = 0; i < v.getVisibleColumns(); i++) {
        fields.add(new Field(v.getColumns(i).getName(), Types.of(v.getColumns(i).getType())));
      }
      root.add(v.getName(), new Schemas.ViewTable(fields, List::of));
    }
    FrameworkConfig config = Frameworks.newConfigBuilder().parserConfig(Schemas.PARSER).defaultSchema(root)
        .typeSystem(Schemas.TYPES).operatorTable(Functions.TABLE).build();
    return Frameworks.getPlanner(config);
  }

  private static SqlNode parse(Planner p, String sql) {
    try {
      return p.parse(sql);
    } catch (SqlParseException e) {
      String msg = e.getMessage().split("\n")[0];
      return throwAt(SqlException.SYNTAX, "syntax error: " + msg, sql, e.getPos().getLineNum(), e.getPos().getColumnNum());
    }
  }

  private static <T> T throwAt(String state, String msg, String sql, int line, int col) {
    throw new SqlException(state, msg, offset(sql, line, col));
  }

  /** 1-based character offset of 1-based (line, column) in {@code sql}. */
  static int offset(String sql, int line, int col) {
    if (line <= 0) {
      return 0;
    }
    int pos = 0;
    for (int l = 1; l < line; l++) {
      int nl = sql.indexOf('\n', pos);
      if (nl < 0) {
        break;
      }
      pos = nl + 1;
    }
    return pos + col;
  }

  private static SqlException validationError(ValidationException e, String sql) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof CalciteContextException cc) {
        return contextError(cc, sql);
      }
    }
    return new SqlException("42000", e.getMessage());
  }

  private static SqlException contextError(CalciteContextException cc, String sql) {
    String msg = cc.getCause() == null ? cc.getMessage() : cc.getCause().getMessage();
    String state = msg.startsWith("Object '") || msg.startsWith("Table '") ? SqlException.UNDEFINED_TABLE
        : msg.startsWith("Column '") ? SqlException.UNDEFINED_COLUMN
        : msg.startsWith("No match found for function") ? "42883"
        : msg.startsWith("Cannot apply") ? SqlException.DATATYPE_MISMATCH : "42000";
    String text = switch (state) {
      case SqlException.UNDEFINED_TABLE -> "unknown table: " + msg;
      case SqlException.UNDEFINED_COLUMN -> "unknown column: " + msg;
      default -> msg;
    };
    return new SqlException(state, text, offset(sql, cc.getPosLine(), cc.getPosColumn()));
  }

  // ---- SHOW, DESCRIBE, EXPLAIN ----

  /** Options as a WITH clause lists them: {@code key = 'value', ...} in key order. */
  static String withClause(Map<String, String> options) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(options).forEach((k, v) -> b.append(b.isEmpty() ? "" : ", ").append(k).append(" = '")
        .append(v.replace("'", "''")).append('\''));
    return b.toString();
  }

  private Result show(Tokens t) {
    if (t.accept("sources")) {
      t.expectEnd();
      List<Object[]> rows = new ArrayList<>();
      for (SourceDef s : snapshotSources().values()) {
        rows.add(new Object[] {s.name(), s.connector(), s.table(), withClause(s.options())});
      }
      return Result.rows(List.of(new Column("name", DataType.VARCHAR), new Column("connector", DataType.VARCHAR),
          new Column("table", DataType.VARCHAR), new Column("options", DataType.VARCHAR)), rows);
    }
    if (t.accept("sinks") || t.accept("tables")) {
      String kind = t.peek(-1).ident().equals("sinks") ? CatalogEntry.SINK : CatalogEntry.TABLE;
      t.expectEnd();
      List<Object[]> rows = new ArrayList<>();
      for (CatalogEntry e : cluster.catalog().values()) {
        if (e.kind().equals(kind)) {
          rows.add(new Object[] {e.name(), e.sql()});
        }
      }
      return Result.rows(List.of(new Column("name", DataType.VARCHAR), new Column("definition", DataType.VARCHAR)), rows);
    }
    if (t.accept("materialized", "views")) {
      t.expectEnd();
      List<Object[]> rows = new ArrayList<>();
      Map<String, CatalogEntry> defs = snapshotViews();
      Map<String, CatalogEntry> catalog = cluster.catalog();
      for (TableCatalog v : allViews().values()) {
        if (catalog.containsKey(v.getName()) && catalog.get(v.getName()).kind().equals(CatalogEntry.TABLE)) {
          continue; // a table is a view underneath; SHOW TABLES lists it
        }
        CatalogEntry d = defs.get(v.getName());
        rows.add(new Object[] {v.getName(), jobOf(v.getName()), d == null ? "(built-in query)" : d.sql()});
      }
      return Result.rows(List.of(new Column("name", DataType.VARCHAR), new Column("job", DataType.VARCHAR),
          new Column("definition", DataType.VARCHAR)), rows);
    }
    String var = t.atEnd() ? "" : t.next().ident();
    String value = switch (var) {
      case "server_version" -> "15.0";
      case "client_encoding", "server_encoding" -> "UTF8";
      case "timezone" -> "UTC";
      case "datestyle" -> "ISO, MDY";
      case "standard_conforming_strings" -> "on";
      case "transaction_isolation", "transaction" -> "read committed";
      default -> throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: SHOW " + var
          + "; try SHOW SOURCES, SHOW TABLES, SHOW MATERIALIZED VIEWS or SHOW SINKS");
    };
    return Result.rows(List.of(new Column(var, DataType.VARCHAR)), List.<Object[]>of(new Object[] {value}));
  }

  private Result describeObject(Tokens t) {
    int pos = t.peek().position();
    String name = t.identifier("a source or view name");
    t.expectEnd();
    List<Column> cols = List.of(new Column("name", DataType.VARCHAR), new Column("type", DataType.VARCHAR),
        new Column("key", DataType.BOOLEAN), new Column("note", DataType.VARCHAR));
    List<Object[]> rows = new ArrayList<>();
    SourceDef s = snapshotSources().get(name);
    if (s != null) {
      for (Field f : s.columns()) {
        String note = f.name().equals(s.watermarkColumn()) ? "watermark " + f.name() + " - " + s.watermarkDelayMs() + " ms" : "";
        rows.add(new Object[] {f.name(), f.type().sqlName(), f.name().equals(s.table().equals("bid") ? "_row_id" : "id"), note});
      }
      return Result.rows(cols, rows);
    }
    TableCatalog v = view(name);
    if (v == null) {
      throw new SqlException(SqlException.UNDEFINED_TABLE, "unknown source or view '" + name + "'", pos);
    }
    for (int i = 0; i < v.getColumnsCount(); i++) {
      boolean key = v.getPkList().contains(i);
      if (i >= v.getVisibleColumns() && !key) {
        continue;
      }
      rows.add(new Object[] {v.getColumns(i).getName(), Types.of(v.getColumns(i).getType()).sqlName(), key,
          i >= v.getVisibleColumns() ? "hidden" : ""});
    }
    return Result.rows(cols, rows);
  }

  private Result explain(Tokens t) {
    JobDefinition def;
    FragmentsResponse running = null;
    if (t.accept("create", "materialized", "view")) {
      String name = t.identifier("a view name");
      t.expect("as");
      int offset = t.restOffset();
      def = JobCompiler.compile(planView(name, t.sql().substring(offset), offset).plan(), 0, vnodeCount, 1);
    } else if (t.peek().ident().equals("select") || t.peek().ident().equals("with")) {
      int offset = t.restOffset();
      def = JobCompiler.compile(planView("explain", t.sql().substring(offset), offset).plan(), 0, vnodeCount, 1);
    } else {
      int pos = t.peek().position();
      String name = t.identifier("a view name or a query");
      t.expectEnd();
      String job = jobOf(name);
      if (job == null) {
        throw new SqlException(SqlException.UNDEFINED_TABLE, "unknown materialized view '" + name + "'", pos);
      }
      def = cluster.jobs().get(job);
      running = cluster.fragments(job);
    }
    List<Object[]> rows = new ArrayList<>();
    for (String line : render(def, running)) {
      rows.add(new Object[] {line});
    }
    return Result.rows(List.of(new Column("QUERY PLAN", DataType.VARCHAR)), rows);
  }

  /** Fragments (root first), their operators, the exchanges between them, state tables and parallelism. */
  static List<String> render(JobDefinition def, FragmentsResponse running) {
    Map<Integer, FragmentView> views = new TreeMap<>();
    if (running != null) {
      running.getFragmentsList().forEach(f -> views.put(f.getFragmentId(), f));
    }
    Map<Integer, String> tables = new TreeMap<>();
    def.getTablesList().forEach(tc -> tables.put(tc.getTableId(), tc.getName()));
    List<String> out = new ArrayList<>();
    out.add("job " + def.getName() + " (vnodes " + def.getVnodeCount() + ")");
    List<Fragment> frags = new ArrayList<>(def.getFragmentsList());
    java.util.Collections.reverse(frags);
    for (Fragment f : frags) {
      FragmentView v = views.get(f.getFragmentId());
      String par = v != null ? v.getActorsCount() + " actors on workers "
          + new TreeSet<>(v.getActorsList().stream().map(ActorView::getWorkerId).toList())
          : f.getSingleton() ? "singleton" : "parallelism set when scheduled";
      out.add("Fragment " + f.getFragmentId() + (f.getSingleton() ? " [singleton]" : "") + ": " + par);
      List<PlanNode> nodes = new ArrayList<>(f.getNodesList());
      java.util.Collections.reverse(nodes);
      for (PlanNode n : nodes) {
        out.add("  " + nodeText(n));
      }
      if (f.getStateTableIdsCount() > 0) {
        List<String> st = new ArrayList<>();
        for (int id : f.getStateTableIdsList()) {
          st.add(id + (tables.containsKey(id) ? " (" + tables.get(id) + ")" : ""));
        }
        out.add("  state tables: " + String.join(", ", st));
      }
      for (FragmentEdge e : def.getEdgesList()) {
        if (e.getDownstreamFragmentId() == f.getFragmentId()) {
          out.add("  <- Exchange " + e.getType() + (e.getDistKeyCount() > 0 ? " " + e.getDistKeyList() : "")
              + " from Fragment " + e.getUpstreamFragmentId());
        }
      }
    }
    return out;
  }

  private static String nodeText(PlanNode n) {
    // The top-N node with OVER calls is an aggregate OVER window.
    String kind = n.hasTopN() && n.getTopN().getCallsCount() > 0 ? "OVER_WINDOW" : n.getKindCase().name();
    String detail = switch (n.getKindCase()) {
      case SOURCE -> n.getSource().hasUpstream() ? "view " + n.getSource().getTable() + " (its committed rows, then its changelog; "
          + n.getSource().getSplitCount() + " vnode splits)"
          : n.getSource().getConnector().equals("table") ? "table " + n.getSource().getTable() + " (rows INSERT, UPDATE and DELETE write)"
          : n.getSource().getConnector() + "." + n.getSource().getTable() + " splits " + n.getSource().getSplitCount()
              + (n.getSource().containsOptions("watermark-delay-ms") ? " watermark delay "
                  + n.getSource().getOptionsOrThrow("watermark-delay-ms") + " ms" : "");
      case TOP_N -> n.getTopN().getCallsCount() == 0
          ? "group keys " + n.getTopN().getGroupKeysList() + " order " + n.getTopN().getOrderColumnsList() + " " + n.getTopN().getRank()
              + " <= " + n.getTopN().getLimit()
          : "partition " + n.getTopN().getGroupKeysList() + " order " + n.getTopN().getOrderColumnsList() + " calls "
              + n.getTopN().getCallsList().stream().map(c -> c.getKind() + "(" + (c.getKind() == dev.tide.proto.plan.AggKind.COUNT_STAR
                  ? "" : c.getArg()) + ")").toList() + " rows " + (n.getTopN().getCalls(0).getPreceding() < 0 ? "unbounded"
                  : n.getTopN().getCalls(0).getPreceding()) + " preceding";
      case SESSION_WINDOW -> "partition " + n.getSessionWindow().getPartitionKeysList() + " gap " + n.getSessionWindow().getGapMs() + " ms";
      case SESSION_AGG -> "partition " + n.getSessionAgg().getPartitionKeysList() + " gap " + n.getSessionAgg().getGapMs() + " ms calls "
          + n.getSessionAgg().getCallsList().stream().map(c -> c.getKind() + "(" + c.getName() + ")").toList();
      case MATERIALIZE -> n.getMaterialize().getName();
      case WINDOW -> n.getWindow().getKind() + " size " + n.getWindow().getSizeMs() + " ms slide " + n.getWindow().getSlideMs() + " ms";
      case HASH_AGG -> "group keys " + n.getHashAgg().getGroupKeysList() + " calls " + n.getHashAgg().getCallsList().stream()
          .map(c -> c.getKind() + "(" + c.getName() + ")").toList() + (n.getHashAgg().getEmitOnWindowClose() ? " emit on window close" : "");
      case HASH_JOIN -> n.getHashJoin().getJoinType() + " keys " + n.getHashJoin().getLeftKeysList() + " = "
          + n.getHashJoin().getRightKeysList() + (n.getHashJoin().getCleanupsCount() > 0 ? " time bounds "
              + n.getHashJoin().getCleanupsCount() : "") + (n.getHashJoin().hasLeftFilter() ? " left filter" : "")
          + (n.getHashJoin().hasRightFilter() ? " right filter" : "");
      case MERGE -> "from fragment " + n.getMerge().getUpstreamFragmentId();
      default -> "";
    };
    List<String> cols = n.getSchemaList().stream().map(f -> f.getName()).toList();
    return kind + (detail.isEmpty() ? "" : " " + detail) + " -> " + cols;
  }

  // ---- DROP, ALTER ----

  private synchronized Result drop(Tokens t) {
    if (t.accept("sink")) {
      boolean ifExists = t.accept("if", "exists");
      int pos = t.peek().position();
      String name = t.identifier("a sink name");
      t.expectEnd();
      CatalogEntry e = cluster.catalog().get(name);
      if (e == null || !e.kind().equals(CatalogEntry.SINK)) {
        if (ifExists) {
          return Result.command("DROP SINK");
        }
        throw new SqlException(SqlException.UNDEFINED_TABLE, "drop sink refused: unknown sink '" + name + "'; sinks: "
            + cluster.catalog().values().stream().filter(c -> c.kind().equals(CatalogEntry.SINK)).map(CatalogEntry::name).toList(), pos);
      }
      dropSink(name);
      return Result.command("DROP SINK");
    }
    boolean source = t.accept("source");
    boolean table = !source && t.accept("table");
    if (!source && !table && !t.accept("materialized", "view")) {
      throw t.error("expected SOURCE, TABLE or MATERIALIZED VIEW");
    }
    boolean ifExists = t.accept("if", "exists");
    int pos = t.peek().position();
    String name = t.identifier("a name");
    boolean cascade = t.accept("cascade");
    t.accept("restrict");
    t.expectEnd();
    Map<String, CatalogEntry> catalog = cluster.catalog();
    if (source) {
      Map<String, SourceDef> sources = snapshotSources();
      if (!sources.containsKey(name)) {
        if (ifExists) {
          return Result.command("DROP SOURCE");
        }
        throw new SqlException(SqlException.UNDEFINED_TABLE, "drop source refused: unknown source '" + name + "'; sources: "
            + sources.keySet(), pos);
      }
      dropDependents("drop source", name, catalog, cascade);
      dropCatalog(name, "drop source");
      return Result.command("DROP SOURCE");
    }
    String what = table ? "drop table" : "drop materialized view";
    String tag = table ? "DROP TABLE" : "DROP MATERIALIZED VIEW";
    boolean isTable = catalog.containsKey(name) && catalog.get(name).kind().equals(CatalogEntry.TABLE);
    if (view(name) == null || isTable != table) {
      if (ifExists && view(name) == null) {
        return Result.command(tag);
      }
      throw new SqlException(SqlException.UNDEFINED_TABLE, what + " refused: " + (view(name) == null ? "unknown " + (table ? "table" : "view")
          + " '" + name + "'" : "'" + name + "' is a " + (isTable ? "table; use DROP TABLE" : "materialized view; use DROP MATERIALIZED VIEW")), pos);
    }
    dropDependents(what, name, catalog, cascade);
    dropView(name);
    return Result.command(tag);
  }

  /**
   * Refuses (2BP01) when views read {@code name} and {@code cascade} is not given; with it, drops
   * them, dependents of dependents first.
   */
  private void dropDependents(String what, String name, Map<String, CatalogEntry> catalog, boolean cascade) {
    List<String> dependents = catalog.values().stream().filter(e -> e.dependsOn().contains(name)).map(CatalogEntry::name).sorted().toList();
    if (dependents.isEmpty()) {
      return;
    }
    if (!cascade) {
      throw new SqlException(SqlException.DEPENDENT_OBJECTS, what + " '" + name + "' refused: " + dependents
          + " read it; drop them first or add CASCADE");
    }
    for (String d : dependents) {
      dropDependents(what, d, catalog, true);
      if (catalog.get(d).kind().equals(CatalogEntry.SINK)) {
        dropSink(d);
      } else if (view(d) != null) {
        dropView(d);
      } else {
        dropCatalog(d, what);
      }
    }
  }

  /** Drops a view: first its catalog entry (refused while others read it), then its job. */
  private void dropView(String name) {
    if (cluster.catalog().containsKey(name)) {
      dropCatalog(name, "drop materialized view");
    }
    try {
      cluster.drop(jobOf(name));
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, "drop materialized view '" + name + "' refused: " + e.getMessage());
    }
  }

  /** Drops a sink: its catalog entry, then its job. */
  private void dropSink(String name) {
    dropCatalog(name, "drop sink");
    try {
      cluster.drop(name);
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, "drop sink '" + name + "' refused: " + e.getMessage());
    }
  }

  private void dropCatalog(String name, String what) {
    try {
      cluster.dropCatalog(name);
    } catch (IllegalStateException e) {
      throw new SqlException(SqlException.DEPENDENT_OBJECTS, what + " '" + name + "' refused: " + e.getMessage());
    }
  }

  /** Stores a catalog object durably in the cluster's meta store. */
  void persist(CatalogEntry e, String what) {
    try {
      cluster.putCatalog(e);
    } catch (IllegalArgumentException ex) {
      throw new SqlException(SqlException.DUPLICATE_OBJECT, ex.getMessage());
    } catch (IllegalStateException ex) {
      throw new SqlException(SqlException.OBJECT_STATE, ex.getMessage());
    }
  }

  private synchronized Result alter(Tokens t) {
    int pos = t.peek().position();
    String name = t.identifier("a view name");
    t.expect("set");
    t.expect("parallelism");
    if (!t.accept("=")) {
      t.expect("to");
    }
    Tokens.Token v = t.next();
    String parallelism = v.kind() == Tokens.Kind.NUMBER ? v.text() : v.ident();
    if (!(v.kind() == Tokens.Kind.NUMBER || parallelism.equals("adaptive"))) {
      throw new SqlException(SqlException.SYNTAX, "syntax error: parallelism must be a number or ADAPTIVE, got '" + v.text() + "'",
          v.position());
    }
    t.expectEnd();
    String job = jobOf(name);
    if (job == null) {
      throw new SqlException(SqlException.UNDEFINED_TABLE, "alter materialized view refused: unknown view '" + name + "'", pos);
    }
    try {
      cluster.scale(job, parallelism);
    } catch (IllegalArgumentException e) {
      throw new SqlException(SqlException.INVALID_PARAMETER, e.getMessage(), v.position());
    } catch (IllegalStateException e) {
      throw new SqlException(SqlException.OBJECT_STATE, e.getMessage());
    }
    return Result.command("ALTER MATERIALIZED VIEW");
  }

  // ---- catalog ----

  /** The durable catalog's sources, parsed from their statements. */
  private Map<String, SourceDef> snapshotSources() {
    Map<String, SourceDef> out = new TreeMap<>();
    for (CatalogEntry e : cluster.catalog().values()) {
      if (e.kind().equals(CatalogEntry.SOURCE)) {
        out.put(e.name(), parsedSources.computeIfAbsent(e.sql(), sql -> {
          Tokens t = new Tokens(sql);
          t.accept("create", "source");
          t.accept("if", "not", "exists");
          return parseSource(t);
        }));
      }
    }
    return out;
  }

  /** The durable catalog's views (those created by SQL), by name. */
  private Map<String, CatalogEntry> snapshotViews() {
    Map<String, CatalogEntry> out = new TreeMap<>();
    cluster.catalog().values().stream().filter(e -> e.kind().equals(CatalogEntry.VIEW)).forEach(e -> out.put(e.name(), e));
    return out;
  }

  /** Views of every running job, by name. */
  private Map<String, TableCatalog> allViews() {
    Map<String, TableCatalog> out = new TreeMap<>();
    for (JobDefinition j : cluster.jobs().values()) {
      j.getTablesList().stream().filter(TableCatalog::getIsMv).forEach(tc -> out.put(tc.getName(), tc));
    }
    return out;
  }

  /** The job of every materialized view, by view name. */
  private Map<String, JobDefinition> viewJobs() {
    Map<String, JobDefinition> out = new TreeMap<>();
    for (JobDefinition j : cluster.jobs().values()) {
      j.getTablesList().stream().filter(TableCatalog::getIsMv).forEach(tc -> out.put(tc.getName(), j));
    }
    return out;
  }

  TableCatalog view(String name) {
    return allViews().get(name);
  }

  private String jobOf(String view) {
    for (JobDefinition j : cluster.jobs().values()) {
      if (j.getTablesList().stream().anyMatch(tc -> tc.getIsMv() && tc.getName().equals(view))) {
        return j.getName();
      }
    }
    return null;
  }

  // ---- text helpers ----

  /** Splits a client's text at semicolons outside quotes and comments; blank statements are dropped. */
  public static List<Statement> split(String text) {
    List<Statement> out = new ArrayList<>();
    int start = 0;
    char quote = 0;
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : ';';
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '-' && i + 1 < text.length() && text.charAt(i + 1) == '-') {
        int nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length() - 1 : nl;
      } else if (c == ';') {
        String s = text.substring(start, Math.min(i, text.length()));
        if (!new Tokens(s).atEnd()) {
          out.add(new Statement(s, start));
        }
        start = i + 1;
      }
    }
    return out;
  }

  private static final Pattern PARAM = Pattern.compile("\\$(\\d+)");

  /** The highest {@code $n} outside quotes. */
  public static int parameterCount(String sql) {
    int max = 0;
    Matcher m = PARAM.matcher(unquoted(sql));
    while (m.find()) {
      max = Math.max(max, Integer.parseInt(m.group(1)));
    }
    return max;
  }

  /** {@code sql} with each {@code $n} outside quotes replaced by {@code values[n-1]} (null: NULL). */
  public static String substitute(String sql, String[] values) {
    if (values.length == 0) {
      return sql;
    }
    String mask = unquoted(sql);
    StringBuilder b = new StringBuilder();
    Matcher m = PARAM.matcher(mask);
    int last = 0;
    while (m.find()) {
      int n = Integer.parseInt(m.group(1));
      if (n < 1 || n > values.length) {
        throw new SqlException(SqlException.PROTOCOL, "parameter $" + n + " has no value: " + values.length + " were bound");
      }
      b.append(sql, last, m.start()).append(values[n - 1] == null ? "NULL" : values[n - 1]);
      last = m.end();
    }
    return b.append(sql.substring(last)).toString();
  }

  /** {@code sql} with quoted text blanked, same length. */
  private static String unquoted(String sql) {
    StringBuilder b = new StringBuilder(sql);
    char quote = 0;
    for (int i = 0; i < b.length(); i++) {
      char c = b.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          b.setCharAt(i, ' ');
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      }
    }
    return b.toString();
  }
}

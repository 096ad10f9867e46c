package dev.tide.stream.plan;

import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.DigestNode;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.FilterNode;
import dev.tide.proto.plan.GroupTopNode;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.JoinCleanup;
import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.MaterializeNode;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.ProjectNode;
import dev.tide.proto.plan.SessionWindowNode;
import dev.tide.proto.plan.SinkNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.plan.TopFilterNode;
import dev.tide.proto.plan.OverCall;
import dev.tide.proto.plan.RankKind;
import dev.tide.proto.plan.TopNNode;
import dev.tide.proto.plan.WindowKind;
import dev.tide.proto.plan.WindowNode;
import dev.tide.stream.connector.Connectors;
import dev.tide.stream.connector.SinkConnector;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.expr.ExprResolver;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds a job's plan IR with names resolved and types checked as each operator is added, so a bad
 * plan fails here, before anything runs. Every stream tracks its stream key (the columns that
 * identify a row of its changelog); a projection that drops key columns keeps them as hidden
 * trailing columns, which materialized views store but scans do not show.
 */
public final class PlanBuilder {
  private final String name;
  private final List<PlanNode> nodes = new ArrayList<>();
  private int sinks;
  private boolean changelogs;

  public PlanBuilder(String name) {
    if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new PlanException("job name '" + name + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
    }
    this.name = name;
  }

  /** A source table of a connector ({@code nexmark}: person, auction or bid). */
  public Stream source(String connector, String table, Map<String, String> options) {
    SourceCatalog.SourceInfo info = SourceCatalog.describe(connector, table, options);
    int splits = connector.equals("nexmark") ? NexmarkSourceOptions.parse(options).get(NexmarkSourceOptions.SPLITS)
        : Connectors.source(connector).splitCount(options);
    SourceNode src = SourceNode.newBuilder().setConnector(connector).setTable(table)
        .putAllOptions(new TreeMap<>(options)).setSplitCount(splits).build();
    return add(PlanNode.newBuilder().setSource(src), List.of(), info.schema(), info.key(), new boolean[info.schema().size()]);
  }

  /**
   * Every materialized view of this plan keeps a changelog, so that views of other jobs can follow
   * it ({@link #view}).
   */
  public PlanBuilder withChangelogs() {
    this.changelogs = true;
    return this;
  }

  /**
   * The rows of another job's materialized view, then its changes (connector {@code view}: {@link
   * dev.tide.stream.source.ViewBackfillOp}). The stream has every column of the view's table (hidden
   * key columns last, hidden here too) and the view's primary key as its stream key.
   *
   * @param table the view's state table, from the upstream job's definition
   * @param changelogTableId the view's changelog table (its job was built {@link #withChangelogs})
   */
  public Stream view(dev.tide.proto.plan.TableCatalog table, int upstreamJobId, int upstreamVnodeCount, int changelogTableId) {
    if (!table.getIsMv() || changelogTableId == 0) {
      throw new PlanException("view '" + table.getName() + "' cannot be followed: "
          + (table.getIsMv() ? "it keeps no changelog (its job was not built with changelogs)" : "it is not a materialized view"));
    }
    Schema schema = Types.schema(table.getColumnsList());
    boolean[] hidden = new boolean[schema.size()];
    for (int i = table.getVisibleColumns(); i < hidden.length; i++) {
      hidden[i] = true;
    }
    int splits = table.getDistKeyCount() == 0 ? 1 : upstreamVnodeCount;
    SourceNode src = SourceNode.newBuilder().setConnector("view").setTable(table.getName()).setSplitCount(splits)
        .setUpstream(dev.tide.proto.plan.UpstreamView.newBuilder().setJobId(upstreamJobId).setTable(table)
            .setChangelogTableId(changelogTableId).setVnodeCount(upstreamVnodeCount))
        .build();
    return add(PlanNode.newBuilder().setSource(src), List.of(), schema, Types.ints(table.getPkList()), hidden);
  }

  /**
   * The rows written into a table by INSERT and DELETE (connector {@code table}: {@link
   * dev.tide.stream.source.TableSourceOp}), keyed by {@code primaryKey} (column indexes).
   */
  public Stream table(String tableName, Schema columns, int[] primaryKey) {
    if (primaryKey.length == 0) {
      throw new PlanException("table '" + tableName + "' needs a primary key");
    }
    SourceNode src = SourceNode.newBuilder().setConnector("table").setTable(tableName).setSplitCount(1)
        .addAllTableColumns(Types.toProto(columns)).build();
    return add(PlanNode.newBuilder().setSource(src), List.of(), columns, primaryKey, new boolean[columns.size()]);
  }

  public Plan build() {
    if (sinks == 0) {
      throw new PlanException("plan '" + name + "' has no materialized view or sink: add materialize(...), digest(...) or sink(...)");
    }
    return Plan.newBuilder().setName(name).addAllNodes(nodes).build();
  }

  private Stream add(PlanNode.Builder b, List<Stream> inputs, Schema schema, int[] key, boolean[] hidden) {
    int id = nodes.size();
    b.setId(id).addAllSchema(Types.toProto(schema));
    boolean[] appendOnly = new boolean[inputs.size()];
    for (int i = 0; i < appendOnly.length; i++) {
      b.addInputs(inputs.get(i).id);
      appendOnly[i] = nodes.get(inputs.get(i).id).getAppendOnly();
    }
    b.setAppendOnly(AppendOnly.derive(b, appendOnly));
    for (int k : key) {
      b.addStreamKey(k);
    }
    nodes.add(b.build());
    return new Stream(id, schema, key, hidden);
  }

  /** The columns of node {@code id}'s output that carry watermarks ({@link Watermarks}). */
  private Set<Integer> watermarks(int id) {
    PlanNode n = nodes.get(id);
    List<Set<Integer>> inputs = new ArrayList<>();
    for (int in : n.getInputsList()) {
      inputs.add(watermarks(in));
    }
    return Watermarks.derive(n, inputs, n.getInputsCount() == 0 ? 0 : nodes.get(n.getInputs(0)).getSchemaCount());
  }

  /** A handle on one node's output while the plan is being built. */
  public final class Stream {
    final int id;
    final Schema schema;
    final int[] key;
    final boolean[] hidden;

    Stream(int id, Schema schema, int[] key, boolean[] hidden) {
      this.id = id;
      this.schema = schema;
      this.key = key;
      this.hidden = hidden;
    }

    public Schema schema() {
      return schema;
    }

    /** Whether the stream holds inserts only. */
    public boolean appendOnly() {
      return nodes.get(id).getAppendOnly();
    }

    /** Whether {@code columns} cover the stream key: no two rows ever share their values. */
    public boolean uniqueOn(List<String> columns) {
      for (int k : key) {
        if (!columns.contains(schema.field(k).name())) {
          return false;
        }
      }
      return true;
    }

    private String where(String op) {
      return op + " (node " + nodes.size() + " of plan '" + name + "')";
    }

    private int column(String col, String op) {
      int i = schema.indexOf(col);
      if (i < 0) {
        throw new PlanException("unknown column '" + col + "' in " + where(op) + "; available columns: " + schema.names());
      }
      return i;
    }

    public Stream filter(Ex condition) {
      Expr e = ExprResolver.resolve(condition, schema, where("filter"));
      if (ExprResolver.typeOf(e) != DataType.BOOLEAN) {
        throw new PlanException("type mismatch in " + where("filter") + ": condition is " + ExprResolver.typeOf(e).sqlName() + ", must be boolean");
      }
      return add(PlanNode.newBuilder().setFilter(FilterNode.newBuilder().setCondition(e)), List.of(this), schema, key, hidden);
    }

    /** Keeps the named columns, in this order. */
    public Stream project(String... columns) {
      List<Named> list = new ArrayList<>();
      for (String c : columns) {
        list.add(new Named(Ex.col(c), c));
      }
      return project(list);
    }

    /** Computes the given expressions; missing stream-key columns are kept as hidden trailing columns. */
    public Stream project(List<Named> exprs) {
      ProjectNode.Builder p = ProjectNode.newBuilder();
      List<Field> fields = new ArrayList<>();
      List<Integer> refs = new ArrayList<>();
      for (Named n : exprs) {
        Expr e = ExprResolver.resolve(n.expr(), schema, where("project"));
        p.addExprs(e).addNames(n.name());
        fields.add(new Field(n.name(), ExprResolver.typeOf(e)));
        refs.add(e.hasInputRef() ? e.getInputRef() : -1);
      }
      checkUniqueNames(fields, where("project"));
      int visible = fields.size();
      int[] outKey = new int[key.length];
      for (int k = 0; k < key.length; k++) {
        int pos = refs.indexOf(key[k]);
        if (pos < 0) {
          pos = fields.size();
          Field f = schema.field(key[k]);
          String hiddenName = f.name().startsWith("_") ? f.name() : "_" + f.name();
          p.addExprs(Expr.newBuilder().setInputRef(key[k]).setType(Types.toProto(f.type()))).addNames(hiddenName);
          fields.add(new Field(hiddenName, f.type()));
          refs.add(key[k]);
        }
        outKey[k] = pos;
      }
      boolean[] outHidden = new boolean[fields.size()];
      for (int i = 0; i < outHidden.length; i++) {
        outHidden[i] = i >= visible || (refs.get(i) >= 0 && hidden[refs.get(i)]);
      }
      return add(PlanNode.newBuilder().setProject(p), List.of(this), new Schema(fields), outKey, outHidden);
    }

    /** Appends window_start and window_end of the tumbling window of {@code timeColumn}. */
    public Stream tumble(String timeColumn, Duration size) {
      return window(WindowKind.TUMBLE, timeColumn, size, size);
    }

    /** One row per hopping window containing {@code timeColumn}, with window_start and window_end. */
    public Stream hop(String timeColumn, Duration size, Duration slide) {
      return window(WindowKind.HOP, timeColumn, size, slide);
    }

    /**
     * Session windows of {@code timeColumn} per partition of {@code partitionKeys} (none: one
     * partition): rows less than {@code gap} apart share a session, whose window_start and
     * window_end (last time + gap) are appended; rows are updated as later rows extend or merge
     * their sessions. Needs an append-only input.
     */
    public Stream session(String timeColumn, List<String> partitionKeys, Duration gap) {
      int t = column(timeColumn, "session");
      if (schema.type(t) != DataType.TIMESTAMP) {
        throw new PlanException("type mismatch in " + where("session") + ": time column '" + timeColumn + "' is "
            + schema.type(t).sqlName() + ", must be timestamp");
      }
      if (gap.toMillis() <= 0) {
        throw new PlanException(where("session") + ": the gap " + gap.toMillis() + " ms must be positive");
      }
      if (!nodes.get(id).getAppendOnly()) {
        throw new PlanException(where("session") + ": the input can delete or update rows; session windows need an append-only input");
      }
      SessionWindowNode.Builder s = SessionWindowNode.newBuilder().setTimeColumn(t)
          .setGapMs(gap.toMillis());
      for (String k : partitionKeys) {
        s.addPartitionKeys(column(k, "session"));
      }
      List<Field> fields = new ArrayList<>(schema.fields());
      fields.add(new Field("window_start", DataType.TIMESTAMP));
      fields.add(new Field("window_end", DataType.TIMESTAMP));
      return add(PlanNode.newBuilder().setSessionWindow(s), List.of(this), new Schema(fields), key, Arrays.copyOf(hidden, fields.size()));
    }

    private Stream window(WindowKind kind, String timeColumn, Duration size, Duration slide) {
      String op = kind.name().toLowerCase(java.util.Locale.ROOT);
      int t = column(timeColumn, op);
      if (schema.type(t) != DataType.TIMESTAMP) {
        throw new PlanException("type mismatch in " + where(op) + ": time column '" + timeColumn + "' is "
            + schema.type(t).sqlName() + ", must be timestamp");
      }
      if (size.toMillis() <= 0 || slide.toMillis() <= 0 || size.toMillis() % slide.toMillis() != 0) {
        throw new PlanException(where(op) + ": window size " + size.toMillis() + " ms must be a positive multiple of the slide "
            + slide.toMillis() + " ms");
      }
      List<Field> fields = new ArrayList<>(schema.fields());
      fields.add(new Field("window_start", DataType.TIMESTAMP));
      fields.add(new Field("window_end", DataType.TIMESTAMP));
      int[] outKey = kind == WindowKind.HOP ? append(key, schema.size()) : key;
      WindowNode w = WindowNode.newBuilder().setKind(kind).setTimeColumn(t).setSizeMs(size.toMillis()).setSlideMs(slide.toMillis()).build();
      return add(PlanNode.newBuilder().setWindow(w), List.of(this), new Schema(fields), outKey, Arrays.copyOf(hidden, fields.size()));
    }

    public Grouped groupBy(String... columns) {
      int[] keys = new int[columns.length];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = column(columns[i], "group by");
      }
      return new Grouped(this, keys);
    }

    /** Inner equi-join; the right side's columns whose names collide get the suffix {@code _r}. */
    public Stream join(Stream right, List<String> leftKeys, List<String> rightKeys) {
      return join(right, leftKeys, rightKeys, List.of());
    }

    /**
     * Inner equi-join whose inputs are distributed by the key pairs of the left keys {@code partitionBy}
     * only (empty: by every pair), so that rows agreeing on them meet at one actor and the output stays
     * partitioned by them. E.g. joining on (window, value) partitioned by window keeps each window's
     * changes in order at one actor while each row still meets only its exact matches.
     */
    public Stream join(Stream right, List<String> leftKeys, List<String> rightKeys, List<String> partitionBy) {
      return join(right, leftKeys, rightKeys, partitionBy, JoinType.INNER);
    }

    /**
     * An equi-join of {@code type}: an outer join also keeps, padded with nulls, the rows of its
     * preserved side(s) that match no row of the other; see {@link #join(Stream, List, List, List)}.
     */
    public Stream join(Stream right, List<String> leftKeys, List<String> rightKeys, List<String> partitionBy,
        JoinType type) {
      return join(right, leftKeys, rightKeys, partitionBy, type, List.of());
    }

    /**
     * A join whose output a later filter bounds in time ({@link Bound}s, e.g. of {@code b.t BETWEEN
     * a.start AND a.end}): rows that no later row of the other side can match leave the join's state
     * as the other side's watermark passes them. A bound applies only when both inputs are
     * append-only and its other column carries a watermark; others are ignored (the join keeps the
     * rows, which is merely larger). The bounds do not filter: the caller still filters the output.
     */
    public Stream join(Stream right, List<String> leftKeys, List<String> rightKeys, List<String> partitionBy,
        JoinType type, List<Bound> bounds) {
      if (leftKeys.isEmpty()) {
        throw new PlanException("missing key in " + where("join") + ": an equi-join needs at least one key pair");
      }
      if (right == this) {
        throw new PlanException(where("join") + ": both sides are node " + id + "; a self-join needs distinct inputs,"
            + " e.g. join the stream with a project(...) of itself");
      }
      if (leftKeys.size() != rightKeys.size()) {
        throw new PlanException(where("join") + ": " + leftKeys.size() + " left keys but " + rightKeys.size() + " right keys");
      }
      HashJoinNode.Builder j = HashJoinNode.newBuilder().setJoinType(type)
          .setLeftAppendOnly(nodes.get(id).getAppendOnly()).setRightAppendOnly(nodes.get(right.id).getAppendOnly());
      for (int i = 0; i < leftKeys.size(); i++) {
        int l = column(leftKeys.get(i), "join");
        int r = right.column(rightKeys.get(i), "join");
        DataType lt = schema.type(l);
        DataType rt = right.schema.type(r);
        if (!(lt == rt || (lt.isNumeric() && rt.isNumeric() && lt != DataType.DOUBLE && rt != DataType.DOUBLE))) {
          throw new PlanException("type mismatch in " + where("join") + ": key " + leftKeys.get(i) + " is " + lt.sqlName()
              + " but " + rightKeys.get(i) + " is " + rt.sqlName());
        }
        j.addLeftKeys(l).addRightKeys(r);
      }
      boolean appendOnly = nodes.get(id).getAppendOnly() && nodes.get(right.id).getAppendOnly();
      for (Bound bound : bounds) {
        Stream own = bound.left() ? this : right;
        Stream other = bound.left() ? right : this;
        int c = own.column(bound.column(), "join");
        int o = other.column(bound.otherColumn(), "join");
        if (appendOnly && type == JoinType.INNER && own.schema.type(c) == DataType.TIMESTAMP
            && other.schema.type(o) == DataType.TIMESTAMP && watermarks(other.id).contains(o)) {
          j.addCleanups(JoinCleanup.newBuilder().setSide(bound.left() ? 0 : 1).setColumn(c).setOtherColumn(o));
        }
      }
      for (String p : partitionBy) {
        int pair = leftKeys.indexOf(p);
        if (pair < 0) {
          throw new PlanException("bad partition key in " + where("join") + ": '" + p + "' is not one of the left keys " + leftKeys);
        }
        if (j.getPartitionPairsList().contains(pair)) {
          throw new PlanException("bad partition key in " + where("join") + ": '" + p + "' is named twice");
        }
        j.addPartitionPairs(pair);
      }
      List<Field> fields = new ArrayList<>(schema.fields());
      Set<String> names = new LinkedHashSet<>(schema.names());
      for (Field f : right.schema.fields()) {
        String n = f.name();
        while (names.contains(n)) {
          n = n + "_r";
        }
        names.add(n);
        fields.add(new Field(n, f.type()));
      }
      int[] outKey = Arrays.copyOf(key, key.length + right.key.length);
      for (int i = 0; i < right.key.length; i++) {
        outKey[key.length + i] = schema.size() + right.key[i];
      }
      boolean[] outHidden = Arrays.copyOf(hidden, fields.size());
      System.arraycopy(right.hidden, 0, outHidden, schema.size(), right.hidden.length);
      return add(PlanNode.newBuilder().setHashJoin(j), List.of(this, right), new Schema(fields), outKey, outHidden);
    }

    /** Materializes this stream as a view keyed by its stream key. */
    public void materialize(String viewName) {
      materialize(viewName, null);
    }

    /**
     * Materializes with an explicit primary key, which must cover the stream key (else a row could
     * silently overwrite another).
     */
    public void materialize(String viewName, List<String> primaryKey) {
      if (viewName == null || !viewName.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new PlanException("view name '" + viewName + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
      }
      if (primaryKey != null) {
        // Validate before visibleFirst() adds a node: a refused call leaves the plan unchanged.
        checkCovers(viewName, primaryKey);
      }
      Stream in = visibleFirst();
      int[] pk = in.key;
      if (primaryKey != null) {
        pk = new int[primaryKey.size()];
        for (int i = 0; i < pk.length; i++) {
          pk[i] = in.column(primaryKey.get(i), "materialize " + viewName);
        }
        for (int k : in.key) {
          if (Arrays.stream(pk).noneMatch(p -> p == k)) {
            throw new PlanException("missing key in materialize '" + viewName + "': primary key " + primaryKey
                + " does not cover the stream key column '" + in.schema.field(k).name() + "'; add it to the primary key");
          }
        }
      }
      int visible = 0;
      while (visible < in.hidden.length && !in.hidden[visible]) {
        visible++;
      }
      MaterializeNode m = MaterializeNode.newBuilder().setName(viewName).setVisibleColumns(visible).setChangelog(changelogs).build();
      sinks++;
      add(PlanNode.newBuilder().setMaterialize(m), List.of(in), in.schema, pk, in.hidden);
    }

    private void checkCovers(String viewName, List<String> primaryKey) {
      int[] pk = new int[primaryKey.size()];
      for (int i = 0; i < pk.length; i++) {
        pk[i] = column(primaryKey.get(i), "materialize " + viewName);
      }
      for (int k : key) {
        if (Arrays.stream(pk).noneMatch(p -> p == k)) {
          throw new PlanException("missing key in materialize '" + viewName + "': primary key " + primaryKey
              + " does not cover the stream key column '" + schema.field(k).name() + "'; add it to the primary key");
        }
      }
    }

    /**
     * Ends this stream in a digest sink: it keeps no rows, only the netted {@link
     * dev.tide.common.hash.RowFingerprint} of the visible columns of its changelog, committed with
     * each epoch (exactly once). The job's digest is the fingerprint of the rows a view of this
     * stream would hold; read it by name (the cluster's committed digests). Like a benchmark's
     * blackhole sink, but checkable.
     */
    public void digest(String digestName) {
      if (digestName == null || !digestName.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new PlanException("digest name '" + digestName + "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*)");
      }
      DigestNode.Builder d = DigestNode.newBuilder().setName(digestName);
      for (int i = 0; i < hidden.length; i++) {
        if (!hidden[i]) {
          d.addColumns(i);
        }
      }
      sinks++;
      add(PlanNode.newBuilder().setDigest(d), List.of(this), schema, key, hidden);
    }

    /** Writes this stream's changelog to a file (one line per row: op and values). */
    public void sink(String path) {
      if (path == null || path.isBlank()) {
        throw new PlanException(where("sink") + ": the sink path must not be empty");
      }
      sinks++;
      add(PlanNode.newBuilder().setSink(SinkNode.newBuilder().setPath(path)), List.of(this), schema, key, hidden);
    }

    /**
     * Ends this stream in an external sink ({@link SinkConnector}: {@code kafka}, {@code postgres})
     * that receives its visible columns; the connector checks {@code options} against them and the
     * stream key here, so a bad option is refused before the job exists.
     */
    public void sink(String connector, Map<String, String> options) {
      SinkConnector c = Connectors.sink(connector);
      if (c == null) {
        throw new PlanException(where("sink") + ": unknown sink connector '" + connector + "'; known connectors: " + Connectors.sinkNames());
      }
      Stream in = visibleFirst();
      int visible = 0;
      while (visible < in.hidden.length && !in.hidden[visible]) {
        visible++;
      }
      dev.tide.common.types.Schema shown = new dev.tide.common.types.Schema(in.schema.fields().subList(0, visible));
      for (int k : in.key) {
        if (k >= visible) {
          throw new PlanException(where("sink") + ": the stream key column '" + in.schema.field(k).name()
              + "' is hidden; project it into the output to sink this stream");
        }
      }
      try {
        c.validate(options, shown, in.key);
      } catch (IllegalArgumentException e) {
        throw new PlanException(where("sink") + ": " + connector + " sink: " + e.getMessage());
      }
      sinks++;
      add(PlanNode.newBuilder().setSink(SinkNode.newBuilder().setConnector(connector).setVisibleColumns(visible).putAllOptions(new TreeMap<>(options))),
          List.of(in), in.schema, in.key, in.hidden);
    }

    private Stream visibleFirst() {
      boolean sorted = true;
      for (int i = 1; i < hidden.length; i++) {
        if (hidden[i - 1] && !hidden[i]) {
          sorted = false;
        }
      }
      if (sorted) {
        return this;
      }
      // Names may repeat after joins; project by position through a fresh resolution.
      ProjectNode.Builder p = ProjectNode.newBuilder();
      List<Field> fields = new ArrayList<>();
      int[] newPos = new int[hidden.length];
      boolean[] outHidden = new boolean[hidden.length];
      int n = 0;
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < hidden.length; i++) {
          if (hidden[i] == (pass == 1)) {
            Field f = schema.field(i);
            p.addExprs(Expr.newBuilder().setInputRef(i).setType(Types.toProto(f.type()))).addNames(f.name());
            fields.add(f);
            outHidden[n] = pass == 1;
            newPos[i] = n++;
          }
        }
      }
      int[] outKey = new int[key.length];
      for (int k = 0; k < key.length; k++) {
        outKey[k] = newPos[key[k]];
      }
      return add(PlanNode.newBuilder().setProject(p), List.of(this), new Schema(fields), outKey, outHidden);
    }
  }

  /** A grouped stream awaiting its aggregate calls or its top rows. */
  public final class Grouped {
    private final Stream in;
    private final int[] keys;
    private final int windowKey; // position in keys of the window that closes groups, or -1

    Grouped(Stream in, int[] keys) {
      this(in, keys, -1);
    }

    private Grouped(Stream in, int[] keys, int windowKey) {
      this.in = in;
      this.keys = keys;
      this.windowKey = windowKey;
    }

    /**
     * The aggregation emits each group once, when the watermark on group key {@code window} passes
     * its value, and then forgets it (SQL: {@code EMIT ON WINDOW CLOSE}): the output is append-only
     * and state holds open windows only. {@code window} must carry a watermark (a window's start or
     * end over a source's event time) and the input must be append-only. Rows that arrive after
     * their window closed are dropped.
     */
    public Grouped emitOnWindowClose(String window) {
      String where = in.where("emitOnWindowClose");
      int col = in.column(window, "emitOnWindowClose");
      int pos = -1;
      for (int k = 0; k < keys.length; k++) {
        if (keys[k] == col) {
          pos = k;
        }
      }
      if (pos < 0) {
        throw new PlanException(where + ": column '" + window + "' is not a group key; group by it to close groups by it");
      }
      if (!watermarks(in.id).contains(col)) {
        throw new PlanException(where + ": column '" + window + "' has no watermark, so its windows never close; use a window's"
            + " window_start or window_end over a source's date_time");
      }
      if (!nodes.get(in.id).getAppendOnly()) {
        throw new PlanException(where + ": the input can delete or update rows, which a closed window could not take back;"
            + " aggregate without emitOnWindowClose");
      }
      return new Grouped(in, keys, pos);
    }

    public Stream agg(Agg... calls) {
      HashAggNode.Builder h = HashAggNode.newBuilder().setAppendOnlyInput(nodes.get(in.id).getAppendOnly());
      if (windowKey >= 0) {
        h.setEmitOnWindowClose(true).setWindowKey(windowKey);
      }
      List<Field> fields = new ArrayList<>();
      for (int k : keys) {
        h.addGroupKeys(k);
        fields.add(in.schema.field(k));
      }
      for (Agg a : calls) {
        AggCall.Builder c = AggCall.newBuilder().setKind(a.kind()).setName(a.name());
        DataType out = DataType.BIGINT;
        if (a.kind() != AggKind.COUNT_STAR) {
          int arg = in.column(a.column(), "aggregate " + a.kind().name().toLowerCase(java.util.Locale.ROOT));
          DataType t = in.schema.type(arg);
          c.setArg(arg);
          switch (a.kind()) {
            case SUM, AVG -> {
              if (!t.isNumeric()) {
                throw new PlanException("type mismatch in " + in.where("aggregate " + a.kind()) + ": " + a.kind() + "(" + a.column()
                    + ") needs a numeric column, got " + t.sqlName());
              }
              out = a.kind() == AggKind.AVG || t == DataType.DOUBLE ? DataType.DOUBLE : DataType.BIGINT;
            }
            case MIN, MAX -> out = t;
            default -> out = DataType.BIGINT;
          }
        }
        h.addCalls(c);
        fields.add(new Field(a.name(), out));
      }
      checkUniqueNames(fields, in.where("aggregate"));
      int[] outKey = new int[keys.length];
      for (int i = 0; i < keys.length; i++) {
        outKey[i] = i;
      }
      return add(PlanNode.newBuilder().setHashAgg(h), List.of(in), new Schema(fields), outKey, new boolean[fields.size()]);
    }

    /**
     * Per group, the rows that hold the group's greatest value of {@code column}, ties included (SQL:
     * {@code RANK() OVER (PARTITION BY keys ORDER BY column DESC) = 1}); a null value never qualifies.
     * The output has the input's columns and its changelog retracts a group's rows when a greater
     * value arrives (or, over an input that deletes or updates rows, when they leave the input); its
     * stream key is the group keys, then the input's.
     */
    public Stream maxRows(String column) {
      return topRows(column, true, "maxRows");
    }

    /**
     * Per group, its first {@code limit} rows in the order of {@code orderColumns} (each descending
     * when its flag says so; nulls greatest), ties broken by the input's stream key ascending, with
     * their row number appended as {@code rankName} (SQL: {@code ROW_NUMBER() OVER (PARTITION BY
     * keys ORDER BY ...) AS rankName} and a filter {@code rankName <= limit}). The changelog updates
     * a row whose number changes; the stream key is the group keys, then the input's.
     */
    public Stream topN(List<String> orderColumns, List<Boolean> descending, long limit, String rankName) {
      return topN(orderColumns, descending, limit, rankName, RankKind.ROW_NUMBER);
    }

    /**
     * {@link #topN(List, List, long, String)} numbered by {@code rank}: ROW_NUMBER, or RANK and
     * DENSE_RANK, under which rows equal in the order columns share a number (all of them are kept
     * up to the limit).
     */
    public Stream topN(List<String> orderColumns, List<Boolean> descending, long limit, String rankName, RankKind rank) {
      String op = "topN";
      if (limit < 1 || limit > 100_000) {
        throw new PlanException(in.where(op) + ": limit " + limit + " must be between 1 and 100000");
      }
      if (orderColumns.size() != descending.size()) {
        throw new PlanException(in.where(op) + ": " + orderColumns.size() + " order columns but " + descending.size() + " directions");
      }
      if (in.schema.indexOf(rankName) >= 0) {
        throw new PlanException(in.where(op) + ": the rank column '" + rankName + "' is already a column of the input; name it otherwise");
      }
      TopNNode.Builder t = TopNNode.newBuilder().setLimit(limit).setRank(rank);
      int[] outKey = orderedGroups(t, orderColumns, descending, op);
      List<Field> fields = new ArrayList<>(in.schema.fields());
      fields.add(new Field(rankName, DataType.BIGINT));
      return add(PlanNode.newBuilder().setTopN(t), List.of(in), new Schema(fields), outKey, Arrays.copyOf(in.hidden, fields.size()));
    }

    /**
     * Fills the group keys, order columns, tie-break (the input's stream key) and input kind of a
     * top-N or OVER node, and returns its stream key: the group keys, then the input's.
     */
    private int[] orderedGroups(TopNNode.Builder t, List<String> orderColumns, List<Boolean> descending, String op) {
      t.setRetractingInput(!nodes.get(in.id).getAppendOnly());
      Set<Integer> outKey = new LinkedHashSet<>();
      for (int k : keys) {
        t.addGroupKeys(k);
        outKey.add(k);
      }
      for (int i = 0; i < orderColumns.size(); i++) {
        t.addOrderColumns(in.column(orderColumns.get(i), op)).addDescending(descending.get(i));
      }
      for (int k : in.key) {
        t.addInputKey(k);
        outKey.add(k);
      }
      return outKey.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Aggregate OVER windows: every row of its group, with one column per call appended, the call over
     * the row and the {@code preceding} rows before it (-1: every row before it) in the order of
     * {@code orderColumns} (nulls greatest), ties broken by the input's stream key ascending (SQL:
     * {@code AGG(x) OVER (PARTITION BY keys ORDER BY ... ROWS BETWEEN n PRECEDING AND CURRENT ROW)}).
     * Calls: COUNT (and COUNT(*)), SUM, MIN, MAX, AVG (DOUBLE). The changelog updates every row whose
     * frame a change reaches; the stream key is the group keys, then the input's.
     */
    public Stream over(List<String> orderColumns, List<Boolean> descending, long preceding, List<Agg> calls) {
      String op = "over";
      if (orderColumns.size() != descending.size()) {
        throw new PlanException(in.where(op) + ": " + orderColumns.size() + " order columns but " + descending.size() + " directions");
      }
      if (preceding < -1 || preceding > 10_000) {
        throw new PlanException(in.where(op) + ": " + preceding + " preceding rows; a frame may reach 0 to 10000 rows back,"
            + " or every row before (-1)");
      }
      if (calls.isEmpty()) {
        throw new PlanException(in.where(op) + ": no aggregate calls");
      }
      TopNNode.Builder t = TopNNode.newBuilder().setLimit(0);
      int[] outKey = orderedGroups(t, orderColumns, descending, op);
      List<Field> fields = new ArrayList<>(in.schema.fields());
      for (Agg a : calls) {
        OverCall.Builder c = OverCall.newBuilder().setKind(a.kind()).setPreceding(preceding).setName(a.name());
        DataType out = DataType.BIGINT;
        if (a.kind() != AggKind.COUNT_STAR) {
          int arg = in.column(a.column(), op + " " + a.kind().name().toLowerCase(java.util.Locale.ROOT));
          DataType type = in.schema.type(arg);
          c.setArg(arg);
          out = switch (a.kind()) {
            case SUM, AVG -> {
              if (!type.isNumeric()) {
                throw new PlanException("type mismatch in " + in.where(op) + ": " + a.kind() + "(" + a.column()
                    + ") needs a numeric column, got " + type.sqlName());
              }
              yield a.kind() == AggKind.AVG || type == DataType.DOUBLE ? DataType.DOUBLE : DataType.BIGINT;
            }
            case MIN, MAX -> type;
            case COUNT -> DataType.BIGINT;
            default -> throw new PlanException(in.where(op) + ": " + a.kind() + " is no OVER aggregate; use COUNT, SUM, MIN, MAX or AVG");
          };
        }
        t.addCalls(c);
        fields.add(new Field(a.name(), out));
      }
      checkUniqueNames(fields, in.where(op));
      return add(PlanNode.newBuilder().setTopN(t), List.of(in), new Schema(fields), outKey, Arrays.copyOf(in.hidden, fields.size()));
    }

    /** Per group, the rows that hold the group's least value of {@code column}; see {@link #maxRows}. */
    public Stream minRows(String column) {
      return topRows(column, false, "minRows");
    }

    /**
     * Over an append-only input, plans two phases: a stateless top filter, which stays before the
     * exchange and drops the rows below what its actor already passed on in their group, and the
     * group top, which keeps each group's current leaders in state. Over an input that can delete or
     * update rows, plans the group top alone, which keeps every row of each group in state (a
     * dropped row may lead once the rows above it are deleted).
     */
    private Stream topRows(String column, boolean descending, String op) {
      int order = in.column(column, op);
      boolean retracting = !nodes.get(in.id).getAppendOnly();
      for (int k : keys) {
        if (k == order) {
          throw new PlanException(in.where(op) + ": column '" + column + "' is a group key, so every row of a group"
              + " holds the same value; order by another column");
        }
      }
      TopFilterNode.Builder f = TopFilterNode.newBuilder().setOrderColumn(order).setDescending(descending);
      GroupTopNode.Builder g = GroupTopNode.newBuilder().setOrderColumn(order).setDescending(descending)
          .setRetractingInput(retracting);
      Set<Integer> outKey = new LinkedHashSet<>();
      for (int k : keys) {
        f.addGroupKeys(k);
        g.addGroupKeys(k);
        outKey.add(k);
      }
      for (int k : in.key) {
        outKey.add(k);
      }
      Stream filtered = retracting ? in : add(PlanNode.newBuilder().setTopFilter(f), List.of(in), in.schema, in.key, in.hidden);
      return add(PlanNode.newBuilder().setGroupTop(g), List.of(filtered), in.schema,
          outKey.stream().mapToInt(Integer::intValue).toArray(), in.hidden);
    }
  }

  /**
   * A time bound of a join's matches: rows of one side (the left when {@code left}) match only rows
   * of the other whose {@code otherColumn} is at most their {@code column}.
   */
  public record Bound(boolean left, String column, String otherColumn) {}

  /** An expression with an output name. */
  public record Named(Ex expr, String name) {}

  /** Output columns a user names must be distinct, else later references by name are ambiguous. */
  private static void checkUniqueNames(List<Field> fields, String where) {
    Set<String> seen = new java.util.HashSet<>();
    for (Field f : fields) {
      if (!seen.add(f.name())) {
        throw new PlanException("duplicate output column '" + f.name() + "' in " + where + "; rename one of them");
      }
    }
  }

  private static int[] append(int[] a, int v) {
    int[] out = Arrays.copyOf(a, a.length + 1);
    out[a.length] = v;
    return out;
  }
}

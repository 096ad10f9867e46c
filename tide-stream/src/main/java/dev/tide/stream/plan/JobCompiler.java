package dev.tide.stream.plan;

import dev.tide.common.hash.VnodeHasher;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.MergeNode;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SessionAggNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.operator.AggLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Compiles a plan into a job: decides where data must be redistributed, cuts the plan into fragments
 * at those exchanges and at fan-out points, and lays out the state tables.
 *
 * <p>Distribution rules: a hash aggregation or a group top needs its input hashed by a non-empty
 * subset of its group keys (or a singleton input when it has none); a join needs each side hashed
 * by exactly its join keys; a materialized view needs a subset of its primary key. A singleton
 * stream satisfies any need.
 * Where a need is unmet an exchange (HASH, or SIMPLE to a singleton) is inserted. A node is chained
 * into its first input's fragment when that input needs no exchange and has no other consumer;
 * otherwise its inputs are merges fed by edges, NO_SHUFFLE where no exchange is needed. Fragments
 * linked by NO_SHUFFLE must scale together. A join whose plan names partition pairs is hashed by
 * those key pairs only.
 *
 * <p>Two-phase aggregation: a hash aggregation behind an exchange whose calls decompose gets a
 * local phase ({@code LocalAggNode}, a compiler-only node with an id past the plan's) at the end of
 * its input's fragment, which combines each chunk before the exchange; the aggregation itself then
 * adds partial states ({@code partial_input}) and keeps its one-phase state table.
 *
 * <p>Before the analysis, stacked projections are fused ({@link ProjectFusion}), aggregations over
 * session windows fused ({@link SessionAggFusion}), filters above inner joins moved into them where
 * they read one side ({@link JoinFilterFusion}), and sources pruned to the columns their consumers
 * read ({@link SourcePruning}).
 */
public final class JobCompiler {
  private enum Kind { ANY, SINGLE, HASH }

  private record Dist(Kind kind, int[] cols) {
    static final Dist ANY = new Dist(Kind.ANY, new int[0]);
    static final Dist SINGLE = new Dist(Kind.SINGLE, new int[0]);

    static Dist hash(int[] cols) {
      return new Dist(Kind.HASH, cols);
    }
  }

  /** A requirement on one input: none, singleton, hash by a subset of cols, or hash by exactly cols. */
  private record Need(Kind kind, int[] cols, boolean exact) {
    static final Need NONE = new Need(Kind.ANY, new int[0], false);
  }

  private final Plan plan;
  private final int jobId;
  private final int vnodeCount;
  private final int tableIdBase;
  /** The plan's nodes; after validation, with projections fused and the sources pruned. */
  private List<PlanNode> nodes;
  private final Dist[] provided;
  private final boolean[][] exchange;
  private final Need[][] needs;
  private final List<List<Integer>> consumers = new ArrayList<>();

  private JobCompiler(Plan plan, int jobId, int vnodeCount, int tableIdBase) {
    this.plan = plan;
    this.jobId = jobId;
    this.vnodeCount = vnodeCount;
    this.tableIdBase = tableIdBase;
    this.nodes = plan.getNodesList();
    this.provided = new Dist[nodes.size()];
    this.exchange = new boolean[nodes.size()][];
    this.needs = new Need[nodes.size()][];
  }

  /**
   * @param tableIdBase first state-table id of this job; ids {@code tableIdBase .. +tableCount} are used
   */
  public static JobDefinition compile(Plan plan, int jobId, int vnodeCount, int tableIdBase) {
    if (vnodeCount < 1 || vnodeCount > VnodeHasher.MAX_VNODE_COUNT) {
      throw new PlanException("vnode count " + vnodeCount + " of job '" + plan.getName() + "' must be between 1 and "
          + VnodeHasher.MAX_VNODE_COUNT);
    }
    return new JobCompiler(plan, jobId, vnodeCount, tableIdBase).run();
  }

  private JobDefinition run() {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).getId() != i) {
        throw new PlanException("plan '" + plan.getName() + "': node " + i + " has id " + nodes.get(i).getId() + "; ids must be 0..n-1 in order");
      }
      consumers.add(new ArrayList<>());
    }
    for (PlanNode n : nodes) {
      for (int in : n.getInputsList()) {
        if (in >= n.getId()) {
          throw new PlanException("plan '" + plan.getName() + "': node " + n.getId() + " reads node " + in + "; inputs must come earlier");
        }
        consumers.get(in).add(n.getId());
      }
      for (int i = 1; i < n.getInputsCount(); i++) {
        if (n.getInputsList().subList(0, i).contains(n.getInputs(i))) {
          // Merges are told apart by upstream fragment: two inputs from one node would share a channel.
          throw new PlanException("plan '" + plan.getName() + "': node " + n.getId() + " reads node " + n.getInputs(i)
              + " twice; each input must be a distinct node");
        }
      }
    }
    for (PlanNode n : nodes) {
      if (n.hasLocalAgg() || (n.hasHashAgg() && n.getHashAgg().getPartialInput())) {
        throw new PlanException("plan '" + plan.getName() + "': node " + n.getId() + " is a "
            + (n.hasLocalAgg() ? "local aggregation" : "partial-input aggregation")
            + ", which only the compiler inserts; write a plain hash aggregation (the compiler splits it into phases)");
      }
      if (n.hasHashJoin() && (n.getHashJoin().hasLeftFilter() || n.getHashJoin().hasRightFilter())) {
        throw new PlanException("plan '" + plan.getName() + "': hash_join node " + n.getId() + " has a side filter, which only the"
            + " compiler sets; filter the join's output instead (the compiler moves what it can into the join)");
      }
      if (n.hasSessionAgg()) {
        throw new PlanException("plan '" + plan.getName() + "': node " + n.getId() + " is a session aggregation, which only the"
            + " compiler inserts; write a hash aggregation over a session window (the compiler fuses them)");
      }
    }
    checkAppendOnlyClaims();
    checkWindowCloses();
    nodes = SourcePruning.apply(JoinFilterFusion.apply(SessionAggFusion.apply(ProjectFusion.apply(nodes))));
    consumers.clear();
    nodes.forEach(n -> consumers.add(new ArrayList<>()));
    nodes.forEach(n -> n.getInputsList().forEach(in -> consumers.get(in).add(n.getId())));
    for (PlanNode n : nodes) {
      analyze(n);
    }
    return cut();
  }

  /**
   * An append-only claim lets operators drop what retractions need (MIN/MAX keep no multiset), so
   * a claim the derivation from the plan's sources does not back is refused: a retraction would
   * otherwise give wrong results. Claiming less than holds is allowed (and merely slower).
   */
  private void checkAppendOnlyClaims() {
    boolean[] appendOnly = new boolean[nodes.size()];
    for (PlanNode n : nodes) {
      boolean[] in = new boolean[n.getInputsCount()];
      for (int i = 0; i < in.length; i++) {
        in[i] = appendOnly[n.getInputs(i)];
      }
      appendOnly[n.getId()] = AppendOnly.derive(n, in);
      if (n.getAppendOnly() && !appendOnly[n.getId()]) {
        throw new PlanException("plan '" + plan.getName() + "': node " + n.getId() + " (" + kindName(n)
            + ") is marked append-only, but its output can hold deletes or updates; leave append_only unset (the plan builder derives it)");
      }
      if (((n.hasGroupTop() && !n.getGroupTop().getRetractingInput()) || (n.hasTopN() && !n.getTopN().getRetractingInput())
          || n.hasTopFilter() || n.hasSessionWindow()) && !in[0]) {
        throw new PlanException("plan '" + plan.getName() + "': " + kindName(n) + " node " + n.getId() + " needs an append-only input,"
            + " but its input node " + n.getInputs(0) + " (" + kindName(nodes.get(n.getInputs(0))) + ") can emit deletes or updates");
      }
      boolean[] claimed = switch (n.getKindCase()) {
        case HASH_AGG -> new boolean[] {n.getHashAgg().getAppendOnlyInput()};
        case HASH_JOIN -> new boolean[] {n.getHashJoin().getLeftAppendOnly(), n.getHashJoin().getRightAppendOnly()};
        default -> new boolean[0];
      };
      for (int i = 0; i < claimed.length && i < in.length; i++) {
        if (claimed[i] && !in[i]) {
          throw new PlanException("plan '" + plan.getName() + "': " + kindName(n) + " node " + n.getId() + " is marked as reading an append-only"
              + " input, but its input node " + n.getInputs(i) + " (" + kindName(nodes.get(n.getInputs(i)))
              + ") can emit deletes or updates; leave the input's append-only flag unset (the plan builder derives it)");
        }
      }
    }
  }

  /**
   * An aggregation that emits on window close needs an append-only input and a group key with a
   * watermark ({@link Watermarks}): without one its windows would never close and it would emit nothing.
   */
  private void checkWindowCloses() {
    List<Set<Integer>> watermarks = new ArrayList<>();
    for (PlanNode n : nodes) {
      List<Set<Integer>> in = new ArrayList<>();
      n.getInputsList().forEach(i -> in.add(watermarks.get(i)));
      watermarks.add(Watermarks.derive(n, in, n.getInputsCount() == 0 ? 0 : nodes.get(n.getInputs(0)).getSchemaCount()));
      if (!n.hasHashAgg() || !n.getHashAgg().getEmitOnWindowClose()) {
        continue;
      }
      HashAggNode h = n.getHashAgg();
      String where = "plan '" + plan.getName() + "': hash_agg node " + n.getId() + " emits on window close";
      if (h.getWindowKey() >= h.getGroupKeysCount()) {
        throw new PlanException(where + ", but its window_key " + h.getWindowKey() + " is not one of its " + h.getGroupKeysCount()
            + " group keys; set window_key to the position of the window column among group_keys");
      }
      if (!h.getAppendOnlyInput()) {
        throw new PlanException(where + ", which needs an append-only input; its input node " + n.getInputs(0)
            + " is not marked append-only (the plan builder derives it)");
      }
      int window = h.getGroupKeys(h.getWindowKey());
      if (!in.get(0).contains(window)) {
        throw new PlanException(where + ", but its window column " + window + " carries no watermark, so no window would ever"
            + " close; group by a window's window_start or window_end over a source's date_time");
      }
    }
  }

  private static String kindName(PlanNode n) {
    return n.getKindCase().name().toLowerCase(java.util.Locale.ROOT);
  }

  private void analyze(PlanNode n) {
    int id = n.getId();
    int inputs = n.getInputsCount();
    needs[id] = new Need[inputs];
    exchange[id] = new boolean[inputs];
    Arrays.fill(needs[id], Need.NONE);
    switch (n.getKindCase()) {
      case HASH_AGG -> {
        int[] g = Types.ints(n.getHashAgg().getGroupKeysList());
        needs[id][0] = g.length == 0 ? new Need(Kind.SINGLE, g, false) : new Need(Kind.HASH, g, false);
      }
      case GROUP_TOP -> {
        int[] g = Types.ints(n.getGroupTop().getGroupKeysList());
        needs[id][0] = g.length == 0 ? new Need(Kind.SINGLE, g, false) : new Need(Kind.HASH, g, false);
      }
      case TOP_N -> {
        int[] g = Types.ints(n.getTopN().getGroupKeysList());
        needs[id][0] = g.length == 0 ? new Need(Kind.SINGLE, g, false) : new Need(Kind.HASH, g, false);
      }
      case SESSION_WINDOW -> {
        int[] g = Types.ints(n.getSessionWindow().getPartitionKeysList());
        needs[id][0] = g.length == 0 ? new Need(Kind.SINGLE, g, false) : new Need(Kind.HASH, g, false);
      }
      case SESSION_AGG -> {
        int[] g = Types.ints(n.getSessionAgg().getPartitionKeysList());
        needs[id][0] = g.length == 0 ? new Need(Kind.SINGLE, g, false) : new Need(Kind.HASH, g, false);
      }
      case HASH_JOIN -> {
        HashJoinNode j = n.getHashJoin();
        needs[id][0] = new Need(Kind.HASH, partitionKeys(j, 0), true);
        needs[id][1] = new Need(Kind.HASH, partitionKeys(j, 1), true);
      }
      case MATERIALIZE -> needs[id][0] = new Need(Kind.HASH, Types.ints(n.getStreamKeyList()), false);
      default -> { }
    }
    Dist[] in = new Dist[inputs];
    for (int i = 0; i < inputs; i++) {
      Dist p = provided[n.getInputs(i)];
      Need need = needs[id][i];
      if (!satisfies(p, need)) {
        exchange[id][i] = true;
        p = need.kind() == Kind.SINGLE ? Dist.SINGLE : Dist.hash(need.cols());
      }
      in[i] = p;
    }
    if (n.getKindCase() == PlanNode.KindCase.HASH_JOIN && (in[0].kind() == Kind.SINGLE) != (in[1].kind() == Kind.SINGLE)) {
      // Co-locate both sides: the non-singleton side goes to the singleton through a SIMPLE exchange.
      int other = in[0].kind() == Kind.SINGLE ? 1 : 0;
      exchange[id][other] = true;
      needs[id][other] = new Need(Kind.SINGLE, new int[0], false);
      in[other] = Dist.SINGLE;
    }
    provided[id] = switch (n.getKindCase()) {
      case SOURCE -> Dist.ANY;
      case FILTER, WINDOW, TOP_FILTER, GROUP_TOP, TOP_N, SESSION_WINDOW, MATERIALIZE, SINK, DIGEST -> in[0];
      case PROJECT -> mapThroughProject(n, in[0]);
      case HASH_AGG -> {
        if (in[0].kind() != Kind.HASH) {
          yield in[0].kind() == Kind.SINGLE ? Dist.SINGLE : Dist.ANY;
        }
        int[] g = Types.ints(n.getHashAgg().getGroupKeysList());
        int[] cols = new int[in[0].cols().length];
        for (int i = 0; i < cols.length; i++) {
          cols[i] = indexOf(g, in[0].cols()[i]);
        }
        yield Dist.hash(cols);
      }
      case SESSION_AGG -> {
        if (in[0].kind() != Kind.HASH) {
          yield in[0].kind() == Kind.SINGLE ? Dist.SINGLE : Dist.ANY;
        }
        // Input column -> partition key -> the output group column showing it.
        SessionAggNode s = n.getSessionAgg();
        int[] cols = new int[in[0].cols().length];
        for (int i = 0; i < cols.length; i++) {
          cols[i] = s.getGroupColumnsList().indexOf(s.getPartitionKeysList().indexOf(in[0].cols()[i]));
        }
        yield Dist.hash(cols);
      }
      case HASH_JOIN -> in[0].kind() == Kind.SINGLE ? Dist.SINGLE : joinOutput(n);
      default -> throw new PlanException("plan '" + plan.getName() + "': node " + id + " has no operator kind");
    };
  }

  /**
   * How a join's output is distributed: by the key columns of a side whose rows all carry their key
   * (an outer join's null-padded rows lack the other side's), the left one when both do.
   */
  private Dist joinOutput(PlanNode n) {
    HashJoinNode j = n.getHashJoin();
    return switch (j.getJoinType()) {
      case INNER, LEFT_OUTER -> Dist.hash(partitionKeys(j, 0));
      case RIGHT_OUTER -> {
        int leftWidth = nodes.get(n.getInputs(0)).getSchemaCount();
        yield Dist.hash(Arrays.stream(partitionKeys(j, 1)).map(k -> leftWidth + k).toArray());
      }
      default -> Dist.ANY;
    };
  }

  /**
   * The columns of join input {@code side} it is hashed by: its keys of the partition pairs, or every
   * key when the join names none.
   */
  private int[] partitionKeys(HashJoinNode j, int side) {
    int[] keys = Types.ints(side == 0 ? j.getLeftKeysList() : j.getRightKeysList());
    if (j.getPartitionPairsCount() == 0) {
      return keys;
    }
    int[] out = new int[j.getPartitionPairsCount()];
    for (int i = 0; i < out.length; i++) {
      int pair = j.getPartitionPairs(i);
      if (pair < 0 || pair >= keys.length || j.getPartitionPairsList().subList(0, i).contains(pair)) {
        throw new PlanException("plan '" + plan.getName() + "': join partition pairs " + j.getPartitionPairsList()
            + " must be distinct indices into its " + keys.length + " key pairs");
      }
      out[i] = keys[pair];
    }
    return out;
  }

  private static Dist mapThroughProject(PlanNode n, Dist in) {
    if (in.kind() != Kind.HASH) {
      return in;
    }
    int[] cols = new int[in.cols().length];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = -1;
      for (int e = 0; e < n.getProject().getExprsCount(); e++) {
        var ex = n.getProject().getExprs(e);
        if (ex.hasInputRef() && ex.getInputRef() == in.cols()[i]) {
          cols[i] = e;
          break;
        }
      }
      if (cols[i] < 0) {
        return Dist.ANY;
      }
    }
    return Dist.hash(cols);
  }

  private static boolean satisfies(Dist p, Need need) {
    if (need.kind() == Kind.ANY || p.kind() == Kind.SINGLE) {
      return true;
    }
    if (need.kind() == Kind.SINGLE || p.kind() != Kind.HASH) {
      return false;
    }
    if (need.exact()) {
      return Arrays.equals(p.cols(), need.cols());
    }
    for (int c : p.cols()) {
      if (indexOf(need.cols(), c) < 0) {
        return false;
      }
    }
    return p.cols().length > 0;
  }

  private static int indexOf(int[] a, int v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }

  // ---- two-phase aggregation ----

  /**
   * Whether a hash aggregation is split into a per-chunk local phase before its exchange and a final
   * phase after it: its input is exchanged (HASH or SIMPLE) and has no other consumer, so the local
   * phase can end the upstream fragment, and every call decomposes. COUNT and integer SUM/AVG
   * decompose over any input (signed deltas add up); MIN/MAX only over an append-only input (a
   * retraction needs the multiset of the final phase); DOUBLE sums never, since pre-summing changes
   * their rounding and the result would differ from the one-phase aggregation.
   */
  private boolean splitsIntoPhases(PlanNode n) {
    if (n.getKindCase() != PlanNode.KindCase.HASH_AGG || !exchange[n.getId()][0]
        || consumers.get(n.getInputs(0)).size() != 1) {
      return false;
    }
    HashAggNode h = n.getHashAgg();
    Schema in = Types.schema(nodes.get(n.getInputs(0)).getSchemaList());
    for (AggCall c : h.getCallsList()) {
      boolean decomposes = switch (c.getKind()) {
        case COUNT_STAR, COUNT -> true;
        case SUM, AVG -> in.type(c.getArg()) != DataType.DOUBLE;
        case MIN, MAX -> h.getAppendOnlyInput();
        default -> false;
      };
      if (!decomposes) {
        return false;
      }
    }
    return true;
  }

  /** The local phase of aggregation {@code n} (its input is added by the caller). */
  private PlanNode localAgg(int localId, PlanNode n) {
    HashAggNode h = n.getHashAgg();
    Schema in = Types.schema(nodes.get(n.getInputs(0)).getSchemaList());
    List<Field> fields = new ArrayList<>();
    for (int k : h.getGroupKeysList()) {
      fields.add(in.field(k));
    }
    fields.addAll(AggLayout.stateFields(h.getCallsList(), in.types()));
    PlanNode.Builder b = PlanNode.newBuilder().setId(localId).addAllSchema(Types.toProto(new Schema(fields)))
        .setAppendOnly(h.getAppendOnlyInput())
        .setLocalAgg(dev.tide.proto.plan.LocalAggNode.newBuilder().addAllGroupKeys(h.getGroupKeysList()).addAllCalls(h.getCallsList()));
    for (int k = 0; k < h.getGroupKeysCount(); k++) {
      b.addStreamKey(k);
    }
    return b.build();
  }

  /** Input columns {@code cols} (group keys of {@code h}) as positions in the local phase's output. */
  private static int[] partialPositions(HashAggNode h, int[] cols) {
    int[] g = Types.ints(h.getGroupKeysList());
    int[] out = new int[cols.length];
    for (int i = 0; i < cols.length; i++) {
      out[i] = indexOf(g, cols[i]);
    }
    return out;
  }

  /** Rewrites a final phase to read the local phase's rows: keys 0..k-1, each call's arg its partial state. */
  private static void toPartialInput(HashAggNode.Builder h) {
    int k = h.getGroupKeysCount();
    int[] offsets = AggLayout.stateOffsets(h.getCallsList());
    h.setPartialInput(true).clearGroupKeys();
    for (int i = 0; i < k; i++) {
      h.addGroupKeys(i);
    }
    for (int c = 0; c < h.getCallsCount(); c++) {
      h.setCalls(c, h.getCalls(c).toBuilder().setArg(k + offsets[c]));
    }
  }

  // ---- fragments ----

  private JobDefinition cut() {
    int[] fragOf = new int[nodes.size()];
    List<List<PlanNode.Builder>> fragNodes = new ArrayList<>();
    List<FragmentEdge> edges = new ArrayList<>();
    int nextSyntheticId = nodes.size();
    for (PlanNode n : nodes) {
      int id = n.getId();
      int frag = -1;
      if (n.getInputsCount() > 0 && !exchange[id][0] && consumers.get(n.getInputs(0)).size() == 1) {
        frag = fragOf[n.getInputs(0)];
      }
      if (frag < 0) {
        frag = fragNodes.size();
        fragNodes.add(new ArrayList<>());
      }
      fragOf[id] = frag;
      PlanNode.Builder b = n.toBuilder().clearInputs();
      for (int i = 0; i < n.getInputsCount(); i++) {
        int in = n.getInputs(i);
        if (i == 0 && fragOf[in] == frag && !exchange[id][0] && consumers.get(in).size() == 1) {
          b.addInputs(in);
          continue;
        }
        int upFrag = fragOf[in];
        PlanNode upstream = nodes.get(in);
        int[] distKey = needs[id][i].cols();
        if (i == 0 && splitsIntoPhases(n)) {
          // The upstream fragment pre-aggregates each chunk; this aggregation adds the partial states.
          upstream = localAgg(nextSyntheticId++, n);
          fragNodes.get(upFrag).add(upstream.toBuilder().addInputs(in));
          distKey = partialPositions(n.getHashAgg(), distKey);
          toPartialInput(b.getHashAggBuilder());
        }
        FragmentEdge.Builder e = FragmentEdge.newBuilder().setUpstreamFragmentId(upFrag).setDownstreamFragmentId(frag);
        if (!exchange[id][i]) {
          e.setType(DispatchType.NO_SHUFFLE);
        } else if (needs[id][i].kind() == Kind.SINGLE) {
          e.setType(DispatchType.SIMPLE);
        } else {
          e.setType(DispatchType.HASH);
          for (int c : distKey) {
            e.addDistKey(c);
          }
        }
        edges.add(e.build());
        int mergeId = nextSyntheticId++;
        PlanNode merge = PlanNode.newBuilder().setId(mergeId)
            .addAllSchema(upstream.getSchemaList()).addAllStreamKey(upstream.getStreamKeyList())
            .setMerge(MergeNode.newBuilder().setUpstreamFragmentId(upFrag)).build();
        fragNodes.get(frag).add(merge.toBuilder());
        b.addInputs(mergeId);
      }
      fragNodes.get(frag).add(b);
    }

    boolean[] singleton = new boolean[fragNodes.size()];
    for (PlanNode n : nodes) {
      if (provided[n.getId()].kind() == Kind.SINGLE) {
        singleton[fragOf[n.getId()]] = true;
      }
    }
    // SIMPLE makes the downstream a singleton; NO_SHUFFLE ties both ends to the same parallelism.
    boolean changed = true;
    while (changed) {
      changed = false;
      for (FragmentEdge e : edges) {
        int u = e.getUpstreamFragmentId();
        int d = e.getDownstreamFragmentId();
        boolean single = e.getType() == DispatchType.SIMPLE || (e.getType() == DispatchType.NO_SHUFFLE && (singleton[u] || singleton[d]));
        boolean upToo = e.getType() == DispatchType.NO_SHUFFLE;
        if (single && (!singleton[d] || (upToo && !singleton[u]))) {
          singleton[d] = true;
          singleton[u] |= upToo;
          changed = true;
        }
      }
    }

    JobDefinition.Builder job = JobDefinition.newBuilder().setJobId(jobId).setName(plan.getName()).setVnodeCount(vnodeCount);
    int nextTable = tableIdBase;
    for (int f = 0; f < fragNodes.size(); f++) {
      Fragment.Builder fb = Fragment.newBuilder().setFragmentId(f).setSingleton(singleton[f]);
      for (PlanNode.Builder b : fragNodes.get(f)) {
        int id = b.getId();
        if (b.hasSource()) {
          fb.setHasSource(true);
        }
        List<TableCatalog> tables = new ArrayList<>();
        nextTable = assignTables(b, id < nodes.size() ? id : -1, f, nextTable, tables);
        for (TableCatalog t : tables) {
          job.addTables(t);
          fb.addStateTableIds(t.getTableId());
        }
        fb.addNodes(b.build());
      }
      // The last node of the user's plan: a compiler-inserted local aggregation ends a fragment
      // without changing how the fragment's input is distributed.
      int root = -1;
      for (PlanNode.Builder nb : fragNodes.get(f)) {
        root = nb.getId() < nodes.size() ? nb.getId() : root;
      }
      Dist d = root >= 0 ? provided[root] : Dist.ANY;
      if (d.kind() == Kind.HASH) {
        for (int c : d.cols()) {
          fb.addDistKey(c);
        }
      }
      job.addFragments(fb);
    }
    job.addAllEdges(edges);
    checkUniqueViewNames(job);
    return job.build();
  }

  /** Views and digests are read by name, so no two of them share one. */
  private static void checkUniqueViewNames(JobDefinition.Builder job) {
    Set<String> names = new LinkedHashSet<>();
    for (TableCatalog t : job.getTablesList()) {
      if ((t.getIsMv() || t.getIsDigest()) && !names.add(t.getName())) {
        throw new PlanException("job '" + job.getName() + "' has two views or digests named '" + t.getName() + "'");
      }
    }
  }

  /** Fills the table ids of a stateful node and describes its tables. Returns the next free id. */
  private int assignTables(PlanNode.Builder b, int planId, int frag, int next, List<TableCatalog> out) {
    String prefix = plan.getName() + "." + b.getId();
    switch (b.getKindCase()) {
      case SOURCE -> {
        b.getSourceBuilder().setStateTableId(next);
        out.add(table(next, prefix + ".splits", List.of(new Field("split", DataType.INT), new Field("offset", DataType.BIGINT)),
            new int[] {0}, new int[0], frag));
        return next + 1;
      }
      case HASH_AGG -> {
        // The table follows the user's node: a partial-input aggregation keeps the one-phase layout.
        HashAggNode.Builder h = b.getHashAggBuilder();
        HashAggNode orig = nodes.get(planId).getHashAgg();
        Schema in = Types.schema(nodes.get(nodes.get(planId).getInputs(0)).getSchemaList());
        int[] g = Types.ints(orig.getGroupKeysList());
        Dist d = provided[planId];
        int[] dist = d.kind() == Kind.HASH ? d.cols() : new int[0];
        List<Field> cols = new ArrayList<>();
        for (int k : g) {
          cols.add(in.field(k));
        }
        cols.addAll(AggLayout.stateFields(orig.getCallsList(), in.types()));
        h.setResultTableId(next);
        out.add(table(next, prefix + ".agg", cols, range(g.length), dist, frag));
        next++;
        for (int c = 0; c < h.getCallsCount(); c++) {
          AggCall call = orig.getCalls(c);
          boolean minMax = call.getKind() == dev.tide.proto.plan.AggKind.MIN || call.getKind() == dev.tide.proto.plan.AggKind.MAX;
          if ((minMax && !h.getAppendOnlyInput()) || call.getKind() == dev.tide.proto.plan.AggKind.COUNT_DISTINCT) {
            List<Field> mm = new ArrayList<>();
            for (int k : g) {
              mm.add(in.field(k));
            }
            mm.add(new Field("value", in.type(call.getArg())));
            mm.add(new Field("count", DataType.BIGINT));
            h.setCalls(c, h.getCalls(c).toBuilder().setMinmaxTableId(next));
            out.add(table(next, prefix + ".minmax" + c, mm, range(g.length + 1), dist, frag));
            next++;
          }
        }
        return next;
      }
      case HASH_JOIN -> {
        HashJoinNode.Builder j = b.getHashJoinBuilder();
        PlanNode orig = nodes.get(planId);
        for (int side = 0; side < 2; side++) {
          PlanNode input = nodes.get(orig.getInputs(side));
          int[] keys = Types.ints(side == 0 ? j.getLeftKeysList() : j.getRightKeysList());
          Set<Integer> pk = new LinkedHashSet<>();
          for (int k : keys) {
            pk.add(k);
          }
          pk.addAll(input.getStreamKeyList());
          int[] pkArr = pk.stream().mapToInt(Integer::intValue).toArray();
          boolean single = provided[orig.getId()].kind() == Kind.SINGLE;
          if (side == 0) {
            j.setLeftTableId(next);
          } else {
            j.setRightTableId(next);
          }
          out.add(table(next, prefix + (side == 0 ? ".left" : ".right"), Types.schema(input.getSchemaList()).fields(), pkArr,
              single ? new int[0] : partitionKeys(orig.getHashJoin(), side), frag));
          next++;
        }
        return next;
      }
      case GROUP_TOP -> {
        // The operator reads a group's rows by the prefix of its keys: the pk starts with them, then,
        // over a retracting input, the order column, so a group's rows are ordered by their value.
        PlanNode input = nodes.get(nodes.get(planId).getInputs(0));
        Set<Integer> pk = new LinkedHashSet<>(b.getGroupTop().getGroupKeysList());
        if (b.getGroupTop().getRetractingInput()) {
          pk.add(b.getGroupTop().getOrderColumn());
        }
        pk.addAll(input.getStreamKeyList());
        Dist d = provided[planId];
        b.getGroupTopBuilder().setTableId(next);
        int[] pkColumns = pk.stream().mapToInt(Integer::intValue).toArray();
        out.add(table(next, prefix + ".top", Types.schema(input.getSchemaList()).fields(), pkColumns,
            d.kind() == Kind.HASH ? d.cols() : new int[0], frag));
        return next + 1;
      }
      case TOP_N -> {
        // A group's rows are read by the prefix of its keys: the pk is them, then the input's stream key.
        PlanNode input = nodes.get(nodes.get(planId).getInputs(0));
        Set<Integer> pk = new LinkedHashSet<>(b.getTopN().getGroupKeysList());
        pk.addAll(input.getStreamKeyList());
        Dist d = provided[planId];
        b.getTopNBuilder().setTableId(next);
        out.add(table(next, prefix + ".topn", Types.schema(input.getSchemaList()).fields(), pk.stream().mapToInt(Integer::intValue).toArray(),
            d.kind() == Kind.HASH ? d.cols() : new int[0], frag));
        return next + 1;
      }
      case SESSION_WINDOW -> {
        // A partition's rows are read by the prefix of its keys, in time order.
        PlanNode input = nodes.get(nodes.get(planId).getInputs(0));
        Set<Integer> pk = new LinkedHashSet<>(b.getSessionWindow().getPartitionKeysList());
        pk.add(b.getSessionWindow().getTimeColumn());
        pk.addAll(input.getStreamKeyList());
        Dist d = provided[planId];
        b.getSessionWindowBuilder().setTableId(next);
        out.add(table(next, prefix + ".session", Types.schema(input.getSchemaList()).fields(),
            pk.stream().mapToInt(Integer::intValue).toArray(), d.kind() == Kind.HASH ? d.cols() : new int[0], frag));
        return next + 1;
      }
      case SESSION_AGG -> {
        // A partition's open sessions are read by the prefix of its keys; dist: the partition keys
        // the input is hashed by (output group columns, mapped back to partition keys).
        SessionAggNode s = b.getSessionAgg();
        Schema in = Types.schema(nodes.get(nodes.get(planId).getInputs(0)).getSchemaList());
        List<Field> cols = new ArrayList<>();
        s.getPartitionKeysList().forEach(k -> cols.add(in.field(k)));
        cols.add(new Field("window_start", DataType.TIMESTAMP));
        cols.add(new Field("last_time", DataType.TIMESTAMP));
        cols.addAll(AggLayout.stateFields(s.getCallsList(), in.types()));
        Dist d = provided[planId];
        int[] dist = d.kind() == Kind.HASH ? Arrays.stream(d.cols()).map(s::getGroupColumns).toArray() : new int[0];
        b.getSessionAggBuilder().setTableId(next);
        out.add(table(next, prefix + ".sessions", cols, range(s.getPartitionKeysCount() + 1), dist, frag));
        return next + 1;
      }
      case MATERIALIZE -> {
        b.getMaterializeBuilder().setTableId(next);
        int[] pk = Types.ints(b.getStreamKeyList());
        Dist d = provided[planId];
        int[] dist = d.kind() == Kind.HASH ? d.cols() : new int[0];
        TableCatalog t = table(next, b.getMaterialize().getName(), Types.schema(b.getSchemaList()).fields(), pk, dist, frag)
            .toBuilder().setIsMv(true).setVisibleColumns(b.getMaterialize().getVisibleColumns()).build();
        out.add(t);
        if (!b.getMaterialize().getChangelog()) {
          return next + 1;
        }
        // The view's changelog (dev.tide.stream.state.Changelog): its keys are not this catalog's
        // pk encoding; the entry names the table id and the row's columns for tools.
        b.getMaterializeBuilder().setChangelogTableId(next + 1);
        out.add(table(next + 1, b.getMaterialize().getName() + ".changelog", Types.schema(b.getSchemaList()).fields(), new int[0],
            new int[0], frag));
        return next + 2;
      }
      case SINK -> {
        if (b.getSink().getConnector().isEmpty()) {
          return next;
        }
        b.getSinkBuilder().setStateTableId(next);
        List<Field> cols = List.of(new Field("actor", DataType.BIGINT), new Field("epoch", DataType.BIGINT),
            new Field("seq", DataType.INT), new Field("op", DataType.INT), new Field("key", DataType.VARCHAR),
            new Field("value", DataType.VARCHAR));
        out.add(table(next, prefix + ".staged", cols, new int[] {0, 1, 2}, new int[0], frag));
        return next + 1;
      }
      case DIGEST -> {
        // Keyed by actor, not by vnode: a digest sink chains onto any stream (a source's included),
        // whose rows fall in vnodes no actor owns. Only the actor writes its row; an actor a
        // rescale removes leaves its row, a committed part of the total, and new actors get new ids.
        b.getDigestBuilder().setTableId(next);
        List<Field> cols = List.of(new Field("actor", DataType.BIGINT), new Field("rows", DataType.BIGINT),
            new Field("sum_a", DataType.BIGINT), new Field("sum_b", DataType.BIGINT));
        out.add(table(next, b.getDigest().getName(), cols, new int[] {0}, new int[0], frag).toBuilder().setIsDigest(true).build());
        return next + 1;
      }
      default -> {
        return next;
      }
    }
  }

  private static int[] range(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  private static TableCatalog table(int id, String name, List<Field> cols, int[] pk, int[] dist, int frag) {
    TableCatalog.Builder t = TableCatalog.newBuilder().setTableId(id).setName(name).setFragmentId(frag);
    for (Field f : cols) {
      t.addColumns(FieldProto.newBuilder().setName(f.name()).setType(Types.toProto(f.type())));
    }
    for (int p : pk) {
      t.addPk(p);
    }
    for (int d : dist) {
      t.addDistKey(d);
    }
    t.setVisibleColumns(cols.size());
    return t.build();
  }
}

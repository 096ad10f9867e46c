package dev.tide.stream.node;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.common.time.Clock;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.proto.stream.ActorInfo;
import dev.tide.proto.stream.DispatcherInfo;
import dev.tide.proto.stream.MergeInfo;
import dev.tide.storage.StateStore;
import dev.tide.stream.actor.Actor;
import dev.tide.stream.actor.Channel;
import dev.tide.stream.actor.Dispatcher;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.actor.Outbox;
import dev.tide.stream.actor.SourceAlignment;
import dev.tide.stream.connector.Connectors;
import dev.tide.stream.connector.SinkConnector;
import dev.tide.stream.connector.SourceConnector;
import dev.tide.stream.expr.SharedExprs;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.DigestOp;
import dev.tide.stream.operator.FilterOp;
import dev.tide.stream.operator.GroupTopOp;
import dev.tide.stream.operator.HashAggOp;
import dev.tide.stream.operator.HashJoinOp;
import dev.tide.stream.operator.LocalAggOp;
import dev.tide.stream.operator.MaterializeOp;
import dev.tide.stream.operator.MergeOp;
import dev.tide.stream.operator.ProjectOp;
import dev.tide.stream.operator.RetractingGroupTopOp;
import dev.tide.stream.operator.SessionAggOp;
import dev.tide.stream.operator.SessionWindowOp;
import dev.tide.stream.operator.SinkOp;
import dev.tide.stream.operator.TopFilterOp;
import dev.tide.stream.operator.TopNOp;
import dev.tide.stream.operator.WindowOp;
import dev.tide.stream.plan.Types;
import dev.tide.stream.source.NexmarkSourceOp;
import dev.tide.stream.source.TableSourceOp;
import dev.tide.stream.source.ViewBackfillOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Turns a fragment and an actor's placement into a runnable {@link Actor}. */
final class ActorBuilder {
  private final StateStore store;
  private final Links links;
  private final Clock clock;
  /** Per job: the alignment its source actors on this node share (an entry is one empty list once they are gone). */
  private final Map<Integer, SourceAlignment> alignments = new ConcurrentHashMap<>();

  ActorBuilder(StateStore store, Links links, Clock clock) {
    this.store = store;
    this.links = links;
    this.clock = clock;
  }

  static Fragment fragment(JobDefinition job, int fragmentId) {
    for (Fragment f : job.getFragmentsList()) {
      if (f.getFragmentId() == fragmentId) {
        return f;
      }
    }
    throw new IllegalArgumentException("job " + job.getJobId() + " has no fragment " + fragmentId);
  }

  /** Builds one actor; with {@code paused}, its sources start paused (the job is paused). */
  Actor build(JobDefinition job, ActorInfo info, boolean paused, Channel barrierInbox, Actor.BarrierListener listener,
      Actor.Wiring wiring) {
    Fragment frag = fragment(job, info.getFragmentId());
    Map<Integer, TableCatalog> tables = new HashMap<>();
    for (TableCatalog t : job.getTablesList()) {
      tables.put(t.getTableId(), t);
    }
    int vnodeCount = frag.getSingleton() ? 1 : job.getVnodeCount();
    VnodeBitmap vnodes = info.getVnodes().isEmpty() ? VnodeBitmap.full(vnodeCount) : VnodeBitmap.parse(vnodeCount, info.getVnodes());
    ActorContext ctx = new ActorContext(info.getActorId(), info.getJobId(), vnodeCount, vnodes, info.getSplitsList(), tables, store, clock,
        paused, job.getCreatedMs(), alignments.computeIfAbsent(info.getJobId(), j -> new SourceAlignment()),
        List.copyOf(info.getFragmentActorIdsList()));

    List<PlanNode> nodes = frag.getNodesList();
    Map<Integer, Integer> index = new HashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      index.put(nodes.get(i).getId(), i);
    }
    int[] parent = new int[nodes.size()];
    int[] side = new int[nodes.size()];
    java.util.Arrays.fill(parent, -1);
    for (int i = 0; i < nodes.size(); i++) {
      for (int s = 0; s < nodes.get(i).getInputsCount(); s++) {
        int child = index.get(nodes.get(i).getInputs(s));
        parent[child] = i;
        side[child] = s;
      }
    }
    SharedExprs shared = sharedExprs(nodes);
    List<Actor.Node> actorNodes = new ArrayList<>();
    List<Actor.Input> inputs = new ArrayList<>();
    Map<Integer, Integer> mergeLeaf = new HashMap<>();
    int sourceLeaf = -1;
    for (int i = 0; i < nodes.size(); i++) {
      PlanNode n = nodes.get(i);
      actorNodes.add(new Actor.Node(operator(n, nodes, index, ctx, shared), parent[i], side[i]));
      if (n.hasSource()) {
        sourceLeaf = i;
      }
      if (n.hasMerge()) {
        mergeLeaf.put(n.getMerge().getUpstreamFragmentId(), i);
        MergeInfo m = merge(info, n.getMerge().getUpstreamFragmentId());
        for (long up : m.getUpstreamActorIdsList()) {
          inputs.add(new Actor.Input(links.input(up, info.getActorId()), i, up));
        }
      }
    }
    List<Dispatcher> dispatchers = new ArrayList<>();
    for (DispatcherInfo d : info.getDispatchersList()) {
      dispatchers.add(dispatcher(info.getActorId(), d));
    }
    return new Actor(info.getActorId(), actorNodes, inputs, mergeLeaf, sourceLeaf, sourceLeaf >= 0 ? barrierInbox : null,
        dispatchers, vnodes, info.getSplitsList(), listener, wiring, clock);
  }

  private static MergeInfo merge(ActorInfo info, int upstreamFragment) {
    for (MergeInfo m : info.getMergesList()) {
      if (m.getUpstreamFragmentId() == upstreamFragment) {
        return m;
      }
    }
    throw new IllegalArgumentException("actor " + info.getActorId() + " has no inputs from fragment " + upstreamFragment);
  }

  Dispatcher dispatcher(long actorId, DispatcherInfo d) {
    int n = d.getDownstreamActorIdsCount();
    boolean placed = d.getDownstreamWorkerIdsCount() > 0;
    if (placed && (d.getDownstreamWorkerIdsCount() != n || d.getDownstreamAddressesCount() != n)) {
      throw new IllegalArgumentException("actor " + actorId + ": dispatcher to fragment " + d.getDownstreamFragmentId() + " has "
          + n + " downstream actors but " + d.getDownstreamWorkerIdsCount() + " worker ids and " + d.getDownstreamAddressesCount()
          + " addresses; they must be parallel lists");
    }
    Outbox[] outs = new Outbox[n];
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = d.getDownstreamActorIds(i);
      outs[i] = placed ? links.output(actorId, ids[i], d.getDownstreamWorkerIds(i), d.getDownstreamAddresses(i))
          : links.output(actorId, ids[i]);
    }
    DispatchType type = d.getType();
    int frag = d.getDownstreamFragmentId();
    return switch (type) {
      case HASH -> new Dispatcher.Hash(outs, Types.ints(d.getDistKeyList()), Types.ints(d.getVnodeOwnerList()), frag, ids);
      case BROADCAST -> new Dispatcher.Broadcast(outs, frag, ids);
      case SIMPLE, NO_SHUFFLE -> {
        if (outs.length != 1) {
          throw new IllegalArgumentException("actor " + actorId + ": " + type + " dispatcher needs exactly one output, has " + outs.length);
        }
        yield new Dispatcher.Single(outs[0], frag, ids[0]);
      }
      case UNRECOGNIZED -> throw new IllegalArgumentException("actor " + actorId + ": unknown dispatch type");
    };
  }

  /** The calls repeated among the filters and projections of one actor's nodes. */
  private static SharedExprs sharedExprs(List<PlanNode> nodes) {
    List<Expr> exprs = new ArrayList<>();
    for (PlanNode n : nodes) {
      if (n.hasFilter()) {
        exprs.add(n.getFilter().getCondition());
      } else if (n.hasProject()) {
        exprs.addAll(n.getProject().getExprsList());
      }
    }
    return SharedExprs.of(exprs);
  }

  private Operator operator(PlanNode n, List<PlanNode> nodes, Map<Integer, Integer> index, ActorContext ctx, SharedExprs shared) {
    return switch (n.getKindCase()) {
      case SOURCE -> n.getSource().getConnector().equals("nexmark") ? new NexmarkSourceOp(n.getSource(), ctx)
          : n.getSource().getConnector().equals(ViewBackfillOp.CONNECTOR) ? new ViewBackfillOp(n.getSource(), ctx)
          : n.getSource().getConnector().equals(TableSourceOp.CONNECTOR)
              ? new TableSourceOp(n.getSource(), TableSourceOp.columnTypes(n.getSource()), ctx)
          : connector(n.getSource().getConnector()).create(n.getSource(), ctx);
      case FILTER -> new FilterOp(n.getFilter().getCondition(), shared);
      case PROJECT -> new ProjectOp(n.getProject().getExprsList(), shared);
      case WINDOW -> new WindowOp(n.getWindow(), inputTypes(n, 0, nodes, index).length);
      case HASH_AGG -> new HashAggOp(n.getHashAgg(), inputTypes(n, 0, nodes, index), ctx);
      case GROUP_TOP -> n.getGroupTop().getRetractingInput()
          ? new RetractingGroupTopOp(n.getGroupTop(), inputTypes(n, 0, nodes, index), ctx)
          : new GroupTopOp(n.getGroupTop(), inputTypes(n, 0, nodes, index), ctx);
      case SESSION_WINDOW -> new SessionWindowOp(n.getSessionWindow(), inputTypes(n, 0, nodes, index), ctx);
      case SESSION_AGG -> new SessionAggOp(n.getSessionAgg(), inputTypes(n, 0, nodes, index), ctx);
      case TOP_N -> new TopNOp(n.getTopN(), inputTypes(n, 0, nodes, index), ctx);
      case TOP_FILTER -> new TopFilterOp(n.getTopFilter(), inputTypes(n, 0, nodes, index));
      case LOCAL_AGG -> new LocalAggOp(n.getLocalAgg(), inputTypes(n, 0, nodes, index));
      case HASH_JOIN -> new HashJoinOp(n.getHashJoin(), inputTypes(n, 0, nodes, index), inputTypes(n, 1, nodes, index), ctx);
      case MATERIALIZE -> new MaterializeOp(n.getMaterialize().getTableId(), n.getMaterialize().getChangelogTableId(), ctx);
      case SINK -> n.getSink().getConnector().isEmpty() ? new SinkOp(n.getSink().getPath(), ctx.actorId(), ctx.store())
          : sinkConnector(n.getSink().getConnector()).create(n.getSink(), visibleSchema(n), Types.ints(n.getStreamKeyList()), ctx);
      case DIGEST -> new DigestOp(n.getDigest().getTableId(), Types.ints(n.getDigest().getColumnsList()), ctx);
      case MERGE -> new MergeOp();
      case KIND_NOT_SET -> throw new IllegalArgumentException("plan node " + n.getId() + " has no operator kind");
    };
  }

  private static SourceConnector connector(String name) {
    SourceConnector c = Connectors.source(name);
    if (c == null) {
      throw new IllegalArgumentException("source connector '" + name + "' is not on this node's class path; known: " + Connectors.sourceNames());
    }
    return c;
  }

  private static SinkConnector sinkConnector(String name) {
    SinkConnector c = Connectors.sink(name);
    if (c == null) {
      throw new IllegalArgumentException("sink connector '" + name + "' is not on this node's class path; known: " + Connectors.sinkNames());
    }
    return c;
  }

  /** A connector sink's visible columns (the planner put them first). */
  private static dev.tide.common.types.Schema visibleSchema(PlanNode n) {
    dev.tide.common.types.Schema s = Types.schema(n.getSchemaList());
    return new dev.tide.common.types.Schema(s.fields().subList(0, n.getSink().getVisibleColumns()));
  }

  private static DataType[] inputTypes(PlanNode n, int side, List<PlanNode> nodes, Map<Integer, Integer> index) {
    return Types.types(nodes.get(index.get(n.getInputs(side))).getSchemaList());
  }
}

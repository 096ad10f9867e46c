package dev.tide.stream.plan;

import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SessionAggNode;
import dev.tide.proto.plan.SessionWindowNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Fuses an aggregation over session windows into one {@code SessionAggNode}: a session window
 * keeps every row and re-emits the rows of a session each time it grows, and the aggregation above
 * it counts them again; fused, state is one running aggregate per open session.
 *
 * <p>Rule: a hash aggregation H (emitting at barriers) reading a session window S, directly or
 * through a project that only selects columns, where S and the project have no other reader; H's
 * group keys are every partition key of S once, plus window_start, window_end or both, and nothing
 * else; its calls are COUNT(*), COUNT, SUM, AVG, MIN or MAX over S's input columns. Then the calls'
 * states merge when sessions do, and the fused node's output equals H's (see the node's doc). H keeps
 * its id, schema, stream key and append-only flag; S and the project are removed and the ids
 * renumbered {@code 0..n-1} in order.
 */
final class SessionAggFusion {
  private static final Set<AggKind> MERGEABLE = Set.of(AggKind.COUNT_STAR, AggKind.COUNT, AggKind.SUM, AggKind.AVG,
      AggKind.MIN, AggKind.MAX);

  private SessionAggFusion() {}

  static List<PlanNode> apply(List<PlanNode> nodes) {
    int[] readers = PlanRewrites.readers(nodes);
    List<PlanNode> out = new ArrayList<>(nodes);
    boolean[] removed = new boolean[nodes.size()];
    boolean any = false;
    for (PlanNode h : nodes) {
      if (!h.hasHashAgg() || h.getHashAgg().getEmitOnWindowClose() || h.getHashAgg().getPartialInput()) {
        continue;
      }
      PlanNode x = nodes.get(h.getInputs(0));
      PlanNode project = x.hasProject() && readers[x.getId()] == 1 ? x : null;
      PlanNode s = project != null ? nodes.get(x.getInputs(0)) : x;
      if (!s.hasSessionWindow() || readers[s.getId()] != 1) {
        continue;
      }
      SessionAggNode fused = fuse(h.getHashAgg(), project, s);
      if (fused == null) {
        continue;
      }
      out.set(h.getId(), h.toBuilder().setInputs(0, s.getInputs(0)).setSessionAgg(fused).build());
      removed[s.getId()] = true;
      if (project != null) {
        removed[project.getId()] = true;
      }
      any = true;
    }
    return any ? PlanRewrites.without(out, removed) : nodes;
  }

  /** The fused node, or null when H's keys or calls do not fit the rule. */
  private static SessionAggNode fuse(HashAggNode h, PlanNode project, PlanNode s) {
    SessionWindowNode w = s.getSessionWindow();
    int width = s.getSchemaCount() - 2; // S's input columns; window_start and window_end follow
    int keys = w.getPartitionKeysCount();
    SessionAggNode.Builder f = SessionAggNode.newBuilder().addAllPartitionKeys(w.getPartitionKeysList())
        .setTimeColumn(w.getTimeColumn()).setGapMs(w.getGapMs());
    boolean[] seen = new boolean[keys + 2];
    for (int g : h.getGroupKeysList()) {
      int c = sessionColumn(g, project);
      int k = c < 0 ? -1 : c < width ? w.getPartitionKeysList().indexOf(c) : c - width + keys;
      if (k < 0 || seen[k]) {
        return null;
      }
      seen[k] = true;
      f.addGroupColumns(k);
    }
    for (int k = 0; k < keys; k++) {
      if (!seen[k]) {
        return null;
      }
    }
    if (!seen[keys] && !seen[keys + 1]) {
      return null;
    }
    for (AggCall call : h.getCallsList()) {
      if (!MERGEABLE.contains(call.getKind())) {
        return null;
      }
      AggCall.Builder c = AggCall.newBuilder().setKind(call.getKind()).setName(call.getName());
      if (call.getKind() != AggKind.COUNT_STAR) {
        int arg = sessionColumn(call.getArg(), project);
        if (arg < 0 || arg >= width) {
          return null;
        }
        c.setArg(arg);
      }
      f.addCalls(c);
    }
    return f.build();
  }

  /** The column of S that column {@code c} of H's input is, or -1 if the project computes it. */
  private static int sessionColumn(int c, PlanNode project) {
    if (project == null) {
      return c;
    }
    Expr e = project.getProject().getExprs(c);
    return e.hasInputRef() ? e.getInputRef() : -1;
  }
}

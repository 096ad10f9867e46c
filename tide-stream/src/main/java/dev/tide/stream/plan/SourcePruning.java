package dev.tide.stream.plan;

import dev.tide.proto.plan.AggCall;
import dev.tide.proto.plan.AggKind;
import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.FilterNode;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.ProjectNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.plan.WindowNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

/**
 * Projection pushdown into sources: a source emits only the columns its consumers read, so the
 * columns a projection right after it drops are never generated.
 *
 * <p>Rule: the columns a source's output is read for are the union over its consumers, where a
 * project reads the columns its expressions refer to, a hash aggregation its group keys and
 * arguments, a filter those of its condition plus what its own consumers read (a filter passes its
 * input's columns through), a window its time column plus what its own consumers read of the
 * columns it passes through (it appends its start and end), and any other consumer reads every
 * column. The source's stream key is always kept. When that leaves columns out, the source node
 * lists the kept ones in {@link SourceNode#getColumnsList()} (in their current order), its schema
 * and those of the filters and windows below it shrink to them, and the column references of
 * those nodes and of the projects and aggregations reading them are renumbered. Node ids, inputs
 * and every project's and aggregation's output are unchanged, so the rewrite is invisible past them.
 */
final class SourcePruning {
  private SourcePruning() {}

  /** The plan's nodes (ids {@code 0..n-1} in order, inputs earlier) with every source pruned. */
  static List<PlanNode> apply(List<PlanNode> nodes) {
    List<List<Integer>> consumers = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      consumers.add(new ArrayList<>());
    }
    for (PlanNode n : nodes) {
      for (int in : n.getInputsList()) {
        consumers.get(in).add(n.getId());
      }
    }
    List<PlanNode> out = new ArrayList<>(nodes);
    for (PlanNode n : nodes) {
      if (n.hasSource()) {
        prune(n, out, consumers);
      }
    }
    return out;
  }

  /** The source's output columns its consumers read (see the class doc), or null if they read all of them. */
  private static BitSet usedColumns(PlanNode source, List<PlanNode> nodes, List<List<Integer>> consumers) {
    BitSet used = new BitSet();
    if (!collect(source.getId(), source.getSchemaCount(), nodes, consumers, used)) {
      return null;
    }
    source.getStreamKeyList().forEach(used::set);
    boolean all = used.cardinality() == source.getSchemaCount();
    // A stream key beyond the schema is a malformed plan, which the rule leaves as it is.
    return all || used.length() > source.getSchemaCount() ? null : used;
  }

  private static boolean collect(int id, int width, List<PlanNode> nodes, List<List<Integer>> consumers, BitSet used) {
    for (int c : consumers.get(id)) {
      PlanNode consumer = nodes.get(c);
      switch (consumer.getKindCase()) {
        case PROJECT -> consumer.getProject().getExprsList().forEach(e -> refs(e, consumer, width, used));
        case FILTER -> {
          refs(consumer.getFilter().getCondition(), consumer, width, used);
          consumer.getStreamKeyList().forEach(used::set);
          if (!collect(c, width, nodes, consumers, used)) {
            return false;
          }
        }
        case HASH_AGG -> {
          HashAggNode h = consumer.getHashAgg();
          h.getGroupKeysList().forEach(k -> ref(k, consumer, width, used));
          h.getCallsList().stream().filter(SourcePruning::hasArg).forEach(call -> ref(call.getArg(), consumer, width, used));
        }
        case WINDOW -> {
          ref(consumer.getWindow().getTimeColumn(), consumer, width, used);
          BitSet passed = new BitSet();
          consumer.getStreamKeyList().forEach(passed::set);
          if (!collect(c, width + 2, nodes, consumers, passed)) {
            return false;
          }
          used.or(passed.get(0, width)); // start and end are the window's own
        }
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  private static void prune(PlanNode source, List<PlanNode> out, List<List<Integer>> consumers) {
    BitSet used = usedColumns(source, out, consumers);
    if (used == null) {
      return;
    }
    int width = source.getSchemaCount();
    SourceNode src = source.getSource();
    int[] current = src.getColumnsCount() == 0 ? range(width) : Types.ints(src.getColumnsList());
    if (current.length != width) {
      throw new PlanException("source node " + source.getId() + " lists " + current.length + " columns but its schema has "
          + width + "; they must match");
    }
    int[] newIndex = new int[width];
    Arrays.fill(newIndex, -1);
    SourceNode.Builder s = src.toBuilder().clearColumns();
    int kept = 0;
    for (int c = used.nextSetBit(0); c >= 0; c = used.nextSetBit(c + 1)) {
      newIndex[c] = kept++;
      s.addColumns(current[c]);
    }
    out.set(source.getId(), narrow(source, newIndex).setSource(s).build());
    renumberConsumers(source.getId(), newIndex, out, consumers);
  }

  private static void renumberConsumers(int id, int[] newIndex, List<PlanNode> out, List<List<Integer>> consumers) {
    for (int c : consumers.get(id)) {
      PlanNode n = out.get(c);
      switch (n.getKindCase()) {
        case PROJECT -> {
          ProjectNode.Builder p = n.getProject().toBuilder().clearExprs();
          n.getProject().getExprsList().forEach(e -> p.addExprs(PlanRewrites.mapRefs(e, i -> newIndex[i])));
          out.set(c, n.toBuilder().setProject(p).build());
        }
        case FILTER -> {
          FilterNode f = FilterNode.newBuilder().setCondition(PlanRewrites.mapRefs(n.getFilter().getCondition(), i -> newIndex[i])).build();
          out.set(c, narrow(n, newIndex).setFilter(f).build());
          renumberConsumers(c, newIndex, out, consumers);
        }
        case HASH_AGG -> {
          HashAggNode.Builder h = n.getHashAgg().toBuilder().clearGroupKeys();
          n.getHashAgg().getGroupKeysList().forEach(k -> h.addGroupKeys(newIndex[k]));
          for (int i = 0; i < h.getCallsCount(); i++) {
            if (hasArg(h.getCalls(i))) {
              h.setCalls(i, h.getCalls(i).toBuilder().setArg(newIndex[h.getCalls(i).getArg()]));
            }
          }
          out.set(c, n.toBuilder().setHashAgg(h).build());
        }
        case WINDOW -> { // its start and end follow the kept columns
          int kept = (int) Arrays.stream(newIndex).filter(i -> i >= 0).count();
          int[] passed = Arrays.copyOf(newIndex, newIndex.length + 2);
          passed[newIndex.length] = kept;
          passed[newIndex.length + 1] = kept + 1;
          WindowNode w = n.getWindow().toBuilder().setTimeColumn(newIndex[n.getWindow().getTimeColumn()]).build();
          out.set(c, narrow(n, passed).setWindow(w).build());
          renumberConsumers(c, passed, out, consumers);
        }
        default -> throw new IllegalStateException("node " + c + " (" + n.getKindCase() + ") cannot read a pruned source;"
            + " collect() admits projects, filters, aggregations and windows only");
      }
    }
  }

  private static boolean hasArg(AggCall call) {
    return call.getKind() != AggKind.COUNT_STAR;
  }

  private static void ref(int column, PlanNode reader, int width, BitSet used) {
    refs(Expr.newBuilder().setInputRef(column).build(), reader, width, used);
  }

  /** The node with its schema and stream key restricted to the kept columns ({@code newIndex >= 0}). */
  private static PlanNode.Builder narrow(PlanNode n, int[] newIndex) {
    PlanNode.Builder b = n.toBuilder().clearSchema().clearStreamKey();
    for (int c = 0; c < newIndex.length; c++) {
      if (newIndex[c] >= 0) {
        b.addSchema(n.getSchema(c));
      }
    }
    for (int k : n.getStreamKeyList()) {
      b.addStreamKey(newIndex[k]);
    }
    return b;
  }

  private static void refs(Expr e, PlanNode reader, int width, BitSet used) {
    switch (e.getKindCase()) {
      case INPUT_REF -> {
        int ref = e.getInputRef();
        if (ref < 0 || ref >= width) {
          throw new PlanException(reader.getKindCase().name().toLowerCase(Locale.ROOT) + " node " + reader.getId()
              + " refers to column " + ref + ", but its input has columns 0.." + (width - 1));
        }
        used.set(ref);
      }
      case CALL -> e.getCall().getArgsList().forEach(a -> refs(a, reader, width, used));
      default -> { }
    }
  }

  private static int[] range(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }
}

package dev.tide.stream.source;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mod;
import static dev.tide.stream.expr.Ex.mul;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.time.ManualClock;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.Operator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.FilterOp;
import dev.tide.stream.operator.Harness;
import dev.tide.stream.operator.ProjectOp;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Named;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A source pruned to the columns its consumers read, followed by the compiled (renumbered) filters
 * and projection, emits exactly the rows of the full source followed by the plan's own ones: same
 * values, same order, across seeds, split counts, an actor owning only some splits, and a restart
 * from the offsets a barrier stored.
 */
class NexmarkSourceProjectionTest {
  private static final long EVENTS = 100_000;

  static List<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (long seed : new long[] {42, 7, -123_456_789}) {
      for (int splits : new int[] {1, 3, 8}) {
        for (String shape : new String[] {"bid", "auction", "person"}) {
          out.add(Arguments.of(seed, splits, shape));
        }
      }
    }
    return out;
  }

  /** A plan reading one table through a projection (and, for auctions and bids, a filter first). */
  private static Plan plan(String shape, long seed, int splits) {
    Map<String, String> options = Map.of("events", Long.toString(EVENTS), "seed", Long.toString(seed),
        "splits", Integer.toString(splits));
    PlanBuilder b = new PlanBuilder("p");
    switch (shape) {
      case "bid" -> b.source("nexmark", "bid", options).filter(eq(mod(col("auction"), lit(3L)), lit(0L)))
          .project(List.of(new Named(mul(lit(0.908), col("price")), "price"), new Named(col("url"), "url"),
              new Named(col("date_time"), "date_time")))
          .materialize("p");
      case "auction" -> b.source("nexmark", "auction", options).filter(eq(col("category"), lit(11L)))
          .project("reserve", "seller", "expires", "item_name").materialize("p");
      case "person" -> b.source("nexmark", "person", options).project("email_address", "state", "credit_card").materialize("p");
      default -> throw new IllegalArgumentException(shape);
    }
    return b.build();
  }

  @ParameterizedTest(name = "seed {0}, {1} splits, {2}")
  @MethodSource("cases")
  void prunedSourceEmitsTheFullSourcesProjectedRows(long seed, int splits, String shape) throws InterruptedException {
    Plan plan = plan(shape, seed, splits);
    List<Integer> all = IntStream.range(0, splits).boxed().toList();
    List<Integer> odd = all.stream().filter(s -> s % 2 == 1).toList();

    Pipeline full = Pipeline.full(plan, all);
    List<List<Object>> expected = full.drain(Integer.MAX_VALUE);
    assertThat(full.source.ended()).isTrue();
    assertThat(expected).isNotEmpty();

    Pipeline pruned = Pipeline.pruned(plan, all);
    assertThat(pruned.sourceNode.getColumnsCount()).isLessThan(pruned.tableWidth());
    assertThat(pruned.drain(Integer.MAX_VALUE)).isEqualTo(expected);

    if (!odd.isEmpty()) {
      assertThat(Pipeline.pruned(plan, odd).drain(Integer.MAX_VALUE)).isEqualTo(Pipeline.full(plan, odd).drain(Integer.MAX_VALUE));
    }
  }

  @ParameterizedTest(name = "seed {0}, {1} splits, {2}")
  @MethodSource("cases")
  void prunedSourceResumesFromTheStoredOffsets(long seed, int splits, String shape) throws InterruptedException {
    Plan plan = plan(shape, seed, splits);
    List<Integer> all = IntStream.range(0, splits).boxed().toList();
    List<List<Object>> resumed = resumeAfterOneChunk(Pipeline.pruned(plan, all));
    assertThat(resumed).isEqualTo(resumeAfterOneChunk(Pipeline.full(plan, all)));
    assertThat(resumed).as("nothing lost or repeated").containsExactlyInAnyOrderElementsOf(Pipeline.full(plan, all).drain(Integer.MAX_VALUE));
  }

  /** The rows of one chunk, then a barrier and, as after a recovery, a new instance on the same store to the end. */
  private static List<List<Object>> resumeAfterOneChunk(Pipeline first) throws InterruptedException {
    List<List<Object>> rows = new ArrayList<>(first.drain(1));
    first.barrier();
    Pipeline restarted = first.restart();
    rows.addAll(restarted.drain(Integer.MAX_VALUE));
    assertThat(restarted.source.ended()).isTrue();
    return rows;
  }

  /** A source actor's operators run by hand: the source, then the filters and the projection over its chunks. */
  private static final class Pipeline {
    final Harness harness;
    final SourceNode sourceNode;
    final List<PlanNode> chain;
    final List<Integer> splits;
    final NexmarkSourceOp source;
    final List<Operator> operators = new ArrayList<>();

    /** The compiled job's own source (pruned) and operators. */
    static Pipeline pruned(Plan plan, List<Integer> splits) {
      Harness h = new Harness(plan);
      return new Pipeline(h, h.node(PlanNode.KindCase.SOURCE).getSource(), chain(h, plan), splits);
    }

    /** The full source followed by the filters and projection as the plan's author wrote them. */
    static Pipeline full(Plan plan, List<Integer> splits) {
      Harness h = new Harness(plan);
      SourceNode all = h.node(PlanNode.KindCase.SOURCE).getSource().toBuilder().clearColumns().build();
      List<PlanNode> chain = plan.getNodesList().stream().filter(n -> n.hasFilter() || n.hasProject()).toList();
      return new Pipeline(h, all, chain, splits);
    }

    private static List<PlanNode> chain(Harness h, Plan plan) {
      List<PlanNode> out = new ArrayList<>();
      for (PlanNode n : plan.getNodesList()) {
        if (n.hasFilter() || n.hasProject()) {
          out.add(h.job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
              .filter(c -> c.getId() == n.getId()).findFirst().orElseThrow());
        }
      }
      return out;
    }

    private Pipeline(Harness harness, SourceNode sourceNode, List<PlanNode> chain, List<Integer> splits) {
      this.harness = harness;
      this.sourceNode = sourceNode;
      this.chain = chain;
      this.splits = splits;
      ActorContext all = harness.context(harness.node(PlanNode.KindCase.SOURCE));
      ActorContext ctx = new ActorContext(1, all.jobId(), all.vnodeCount(), all.vnodes(), splits, new TreeMap<>(all.tables()),
          harness.store, new ManualClock(0));
      this.source = new NexmarkSourceOp(sourceNode, ctx);
      for (PlanNode n : chain) {
        operators.add(n.hasFilter() ? new FilterOp(n.getFilter().getCondition()) : new ProjectOp(n.getProject().getExprsList()));
      }
      source.open();
      barrier();
    }

    Pipeline restart() {
      return new Pipeline(harness, sourceNode, chain, splits);
    }

    int tableWidth() {
      return NexmarkTable.valueOf(sourceNode.getTable().toUpperCase(Locale.ROOT)).schema().size();
    }

    void barrier() {
      source.onBarrier(harness.barrier(), c -> { });
    }

    /** The visible rows of up to {@code chunks} source chunks after the filters and the projection. */
    List<List<Object>> drain(int chunks) throws InterruptedException {
      List<List<Object>> rows = new ArrayList<>();
      for (int i = 0; i < chunks; i++) {
        StreamChunk c = source.next(0);
        if (c == null) {
          break;
        }
        List<StreamChunk> in = List.of(c);
        for (Operator op : operators) {
          List<StreamChunk> out = new ArrayList<>();
          for (StreamChunk x : in) {
            op.process(0, x, out::add);
          }
          in = out;
        }
        for (StreamChunk x : in) {
          for (int r = 0; r < x.size(); r++) {
            if (x.visible(r)) {
              rows.add(Arrays.asList(x.row(r)));
            }
          }
        }
      }
      return rows;
    }
  }
}

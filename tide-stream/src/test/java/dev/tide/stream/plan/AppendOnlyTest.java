package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.queries.NexmarkPlans;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The planner derives which streams are append-only, aggregations over them take MIN/MAX without a
 * multiset table, and the compiler refuses a plan claiming an append-only stream that can retract.
 */
class AppendOnlyTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  private static List<PlanNode> aggs(Plan plan) {
    return plan.getNodesList().stream().filter(PlanNode::hasHashAgg).toList();
  }

  /** Bids counted per auction, then the greatest count: a max over a retracting input. */
  private static Plan maxOfCounts() {
    PlanBuilder b = new PlanBuilder("m");
    b.source("nexmark", "bid", OPTS).groupBy("auction").agg(Agg.count("n")).groupBy().agg(Agg.max("n", "most")).materialize("m");
    return b.build();
  }

  private static List<String> minmaxTables(JobDefinition job) {
    return job.getTablesList().stream().map(TableCatalog::getName).filter(n -> n.contains(".minmax")).toList();
  }

  @Test
  void sourcesFiltersProjectsWindowsAndJoinsOfAppendOnlyInputsAreAppendOnlyAggregationsAreNot() {
    PlanBuilder b = new PlanBuilder("p");
    Stream bids = b.source("nexmark", "bid", OPTS).filter(gt(col("price"), lit(10L))).tumble("date_time", NexmarkPlans.TUMBLE);
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "seller");
    Stream auctionIds = auctions.project("id");
    Stream joined = bids.join(auctions, List.of("auction"), List.of("id"));
    Stream counts = joined.groupBy("auction").agg(Agg.count("n"));
    counts.join(auctionIds, List.of("auction"), List.of("id")).filter(gt(col("n"), lit(1L))).materialize("p");
    Plan plan = b.build();
    for (PlanNode n : plan.getNodesList()) {
      boolean afterAgg = n.getId() >= aggs(plan).get(0).getId();
      assertThat(n.getAppendOnly()).as("node %d (%s)", n.getId(), n.getKindCase()).isEqualTo(!afterAgg);
    }
    assertThat(aggs(plan).get(0).getHashAgg().getAppendOnlyInput()).isTrue();
  }

  @Test
  void q4TakesItsMaxOverAnAppendOnlyInputWithoutAMultisetTableAMaxOfCountsKeepsIt() {
    Plan q4 = NexmarkPlans.plan("q4", OPTS);
    PlanNode max = aggs(q4).get(0);
    assertThat(max.getHashAgg().getAppendOnlyInput()).isTrue();
    assertThat(minmaxTables(JobCompiler.compile(q4, 7, 256, 1000))).isEmpty();
    // its join of append-only inputs forgets an auction past its expiry and a bid older than every later auction
    PlanNode join = q4.getNodesList().stream().filter(PlanNode::hasHashJoin).findFirst().orElseThrow();
    assertThat(join.getHashJoin().getCleanupsList()).extracting(c -> c.getSide()).containsExactlyInAnyOrder(0, 1);
    Plan counted = maxOfCounts();
    assertThat(aggs(counted)).extracting(n -> n.getHashAgg().getAppendOnlyInput()).containsExactly(true, false);
    assertThat(minmaxTables(JobCompiler.compile(counted, 7, 256, 1000))).containsExactly("m." + aggs(counted).get(1).getId() + ".minmax0");
  }

  /** The max aggregation reads the counts, which retract. */
  @Test
  void anAggregationClaimingAnAppendOnlyInputThatRetractsIsRefused() {
    Plan counted = maxOfCounts();
    PlanNode max = aggs(counted).get(1);
    Plan lying = counted.toBuilder().setNodes(max.getId(),
        max.toBuilder().setHashAgg(max.getHashAgg().toBuilder().setAppendOnlyInput(true))).build();
    assertThatThrownBy(() -> JobCompiler.compile(lying, 7, 256, 1000))
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("hash_agg node " + max.getId())
        .hasMessageContaining("input node " + max.getInputs(0) + " (hash_agg) can emit deletes or updates");
  }

  @Test
  void aNodeClaimingAnAppendOnlyOutputThatRetractsIsRefused() {
    Plan q4 = NexmarkPlans.plan("q4", OPTS);
    PlanNode avg = aggs(q4).get(1);
    Plan lying = q4.toBuilder().setNodes(avg.getId(), avg.toBuilder().setAppendOnly(true)).build();
    assertThatThrownBy(() -> JobCompiler.compile(lying, 7, 256, 1000))
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("node " + avg.getId() + " (hash_agg) is marked append-only");
  }

  @Test
  void aJoinClaimingAnAppendOnlyInputThatRetractsIsRefused() {
    Plan q4 = NexmarkPlans.plan("q4", OPTS);
    PlanNode join = q4.getNodesList().stream().filter(PlanNode::hasHashJoin).findFirst().orElseThrow();
    assertThat(join.getHashJoin().getLeftAppendOnly()).isTrue();
    assertThat(join.getHashJoin().getRightAppendOnly()).isTrue();
    PlanBuilder b = new PlanBuilder("j");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    bids.join(bids.groupBy("auction").agg(Agg.count("n")), List.of("auction"), List.of("auction")).materialize("j");
    Plan withCounts = b.build();
    join = withCounts.getNodesList().stream().filter(PlanNode::hasHashJoin).findFirst().orElseThrow();
    assertThat(join.getHashJoin().getRightAppendOnly()).isFalse();
    Plan lying = withCounts.toBuilder().setNodes(join.getId(),
        join.toBuilder().setHashJoin(join.getHashJoin().toBuilder().setRightAppendOnly(true))).build();
    assertThatThrownBy(() -> JobCompiler.compile(lying, 7, 256, 1000))
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("hash_join node " + join.getId())
        .hasMessageContaining("input node " + join.getInputs(1) + " (hash_agg) can emit deletes or updates");
  }

  @Test
  void claimingLessThanHoldsIsAllowedAndKeepsTheMultiset() {
    Plan q4 = NexmarkPlans.plan("q4", OPTS);
    PlanNode max = aggs(q4).get(0);
    Plan modest = q4.toBuilder().setNodes(max.getId(),
        max.toBuilder().setHashAgg(max.getHashAgg().toBuilder().setAppendOnlyInput(false))).build();
    assertThat(minmaxTables(JobCompiler.compile(modest, 7, 256, 1000))).hasSize(1);
  }

  @Test
  void aTopFilterIsAppendOnlyAGroupTopIsNot() {
    Plan q7 = NexmarkPlans.plan("q7", OPTS);
    PlanNode filter = q7.getNodesList().stream().filter(PlanNode::hasTopFilter).findFirst().orElseThrow();
    PlanNode top = q7.getNodesList().stream().filter(PlanNode::hasGroupTop).findFirst().orElseThrow();
    assertThat(filter.getAppendOnly()).isTrue();
    assertThat(top.getInputsList()).containsExactly(filter.getId());
    assertThat(top.getAppendOnly()).isFalse();
    assertThat(q7.getNodesList().stream().filter(n -> n.getId() > top.getId())).noneMatch(PlanNode::getAppendOnly);
  }

  /** A group top keeps only the current leaders: over an input that retracts it would give wrong results. */
  @Test
  void aGroupTopOverAnInputThatRetractsIsRefused() {
    PlanBuilder b = new PlanBuilder("p");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    bids.groupBy("auction", "_row_id").agg(Agg.max("price", "price")).materialize("maxes");
    bids.groupBy("auction").maxRows("price").materialize("p");
    Plan plan = b.build();
    int agg = aggs(plan).get(0).getId();
    PlanNode filter = plan.getNodesList().stream().filter(PlanNode::hasTopFilter).findFirst().orElseThrow();
    Plan rewired = plan.toBuilder().setNodes(filter.getId(), filter.toBuilder().setInputs(0, agg).setAppendOnly(false)).build();
    assertThatThrownBy(() -> JobCompiler.compile(rewired, 7, 256, 1000))
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("top_filter node " + filter.getId() + " needs an append-only input")
        .hasMessageContaining("input node " + agg + " (hash_agg) can emit deletes or updates");
  }
}

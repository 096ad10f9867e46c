package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.add;
import static dev.tide.stream.expr.Ex.and;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.JoinType;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A filter above an inner join gives the join the conditions that read one side. */
class JoinFilterFusionTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  /** Bids (auction, price, _row_id) joined with auctions (id, category), filtered by {@code condition}. */
  private static PlanBuilder plan(Ex condition, JoinType type) {
    PlanBuilder b = new PlanBuilder("q20");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "category");
    bids.join(auctions, List.of("auction"), List.of("id"), List.of(), type).filter(condition).materialize("q20");
    return b;
  }

  private static List<PlanNode> nodes(PlanBuilder b) {
    return JobCompiler.compile(b.build(), 1, 16, 1).getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).toList();
  }

  private static HashJoinNode join(List<PlanNode> nodes) {
    return nodes.stream().filter(PlanNode::hasHashJoin).findFirst().orElseThrow().getHashJoin();
  }

  @Test
  void aConditionOnOneSideMovesIntoTheJoinAndTheFilterGoes() {
    List<PlanNode> nodes = nodes(plan(eq(col("category"), lit(10L)), JoinType.INNER));
    HashJoinNode j = join(nodes);
    assertThat(j.hasRightFilter()).isTrue();
    assertThat(j.hasLeftFilter()).isFalse();
    assertThat(j.getRightFilter().getCall().getArgs(0).getInputRef()).as("renumbered onto the right input").isEqualTo(1);
    assertThat(nodes).noneMatch(PlanNode::hasFilter);
  }

  @Test
  void eachSidesConjunctsMoveAndWhatReadsBothStays() {
    List<PlanNode> nodes = nodes(plan(and(and(eq(col("category"), lit(10L)), gt(col("price"), lit(5L))),
        gt(add(col("price"), col("category")), lit(7L))), JoinType.INNER));
    HashJoinNode j = join(nodes);
    assertThat(j.hasLeftFilter() && j.hasRightFilter()).isTrue();
    assertThat(nodes).filteredOn(PlanNode::hasFilter).singleElement()
        .satisfies(f -> assertThat(f.getFilter().getCondition().getCall().getFunction()).isEqualTo("gt"));
  }

  @Test
  void anOuterJoinKeepsItsFilterAbove() {
    List<PlanNode> nodes = nodes(plan(eq(col("category"), lit(10L)), JoinType.LEFT_OUTER));
    assertThat(join(nodes).hasRightFilter()).isFalse();
    assertThat(nodes).anyMatch(PlanNode::hasFilter);
  }

  @Test
  void aPlanSettingASideFilterItselfIsRefused() {
    Plan plan = plan(eq(col("category"), lit(10L)), JoinType.INNER).build();
    Plan.Builder forged = plan.toBuilder();
    for (int i = 0; i < forged.getNodesCount(); i++) {
      if (forged.getNodes(i).hasHashJoin()) {
        PlanNode n = forged.getNodes(i);
        forged.setNodes(i, n.toBuilder().setHashJoin(n.getHashJoin().toBuilder()
            .setLeftFilter(plan.getNodesList().stream().filter(PlanNode::hasFilter).findFirst().orElseThrow().getFilter().getCondition())));
      }
    }
    assertThatThrownBy(() -> JobCompiler.compile(forged.build(), 1, 16, 1)).isInstanceOf(PlanException.class)
        .hasMessageContaining("side filter, which only the compiler sets");
  }
}

package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mul;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SessionAggNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An aggregation over session windows compiles to one session aggregation where its keys and calls allow. */
class SessionAggFusionTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  private static Stream sessions(PlanBuilder b) {
    return b.source("nexmark", "bid", OPTS).project("bidder", "price", "date_time", "_row_id")
        .session("date_time", List.of("bidder"), Duration.ofSeconds(10));
  }

  private static List<PlanNode> nodes(PlanBuilder b) {
    JobDefinition job = JobCompiler.compile(b.build(), 1, 16, 1);
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).toList();
  }

  private static List<PlanNode.KindCase> kinds(PlanBuilder b) {
    return nodes(b).stream().map(PlanNode::getKindCase).toList();
  }

  @Test
  void aCountPerSessionThroughARenamingProjectionIsFused() {
    PlanBuilder b = new PlanBuilder("q11");
    sessions(b).project("window_end", "bidder", "price", "window_start").groupBy("bidder", "window_start", "window_end")
        .agg(Agg.count("n"), Agg.max("price", "top")).materialize("q11");
    JobDefinition job = JobCompiler.compile(b.build(), 1, 16, 1);
    List<PlanNode> nodes = job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).toList();
    assertThat(nodes).extracting(PlanNode::getKindCase).doesNotContain(PlanNode.KindCase.SESSION_WINDOW, PlanNode.KindCase.HASH_AGG);
    SessionAggNode s = nodes.stream().filter(PlanNode::hasSessionAgg).findFirst().orElseThrow().getSessionAgg();
    assertThat(s.getGroupColumnsList()).containsExactly(0, 1, 2); // bidder, window_start, window_end
    assertThat(s.getCalls(1).getArg()).isEqualTo(1); // price, a column of the session's input
    PlanNode fused = nodes.stream().filter(PlanNode::hasSessionAgg).findFirst().orElseThrow();
    assertThat(fused.getSchemaList()).extracting(f -> f.getName()).containsExactly("bidder", "window_start", "window_end", "n", "top");
    TableCatalog t = job.getTablesList().stream().filter(c -> c.getTableId() == s.getTableId()).findFirst().orElseThrow();
    assertThat(t.getPkList()).containsExactly(0, 1); // bidder, window_start
    assertThat(t.getDistKeyList()).containsExactly(0);
  }

  @Test
  void keysInAnotherOrderAndOneWindowBoundAreFused() {
    PlanBuilder b = new PlanBuilder("v");
    sessions(b).groupBy("window_end", "bidder").agg(Agg.sum("price", "total")).materialize("v");
    SessionAggNode s = nodes(b).stream().filter(PlanNode::hasSessionAgg).findFirst().orElseThrow().getSessionAgg();
    assertThat(s.getGroupColumnsList()).containsExactly(2, 0);
  }

  @Test
  void groupingsAndCallsThatDoNotFitStayAsTheyAre() {
    PlanBuilder noWindow = new PlanBuilder("v");
    sessions(noWindow).groupBy("bidder").agg(Agg.count("n")).materialize("v");
    PlanBuilder extraKey = new PlanBuilder("v");
    sessions(extraKey).groupBy("bidder", "window_start", "price").agg(Agg.count("n")).materialize("v");
    PlanBuilder distinct = new PlanBuilder("v");
    sessions(distinct).groupBy("bidder", "window_start").agg(Agg.countDistinct("price", "n")).materialize("v");
    PlanBuilder computed = new PlanBuilder("v");
    sessions(computed).project(List.of(new Named(col("bidder"), "bidder"), new Named(col("window_start"), "window_start"),
        new Named(mul(col("price"), lit(2L)), "p2"))).groupBy("bidder", "window_start").agg(Agg.sum("p2", "n")).materialize("v");
    PlanBuilder shared = new PlanBuilder("v");
    Stream s = sessions(shared);
    s.groupBy("bidder", "window_start").agg(Agg.count("n")).materialize("v");
    s.materialize("rows");
    for (PlanBuilder b : List.of(noWindow, extraKey, distinct, computed, shared)) {
      assertThat(kinds(b)).contains(PlanNode.KindCase.SESSION_WINDOW).doesNotContain(PlanNode.KindCase.SESSION_AGG);
    }
  }

  @Test
  void aPlanWritingASessionAggregationItselfIsRefused() {
    PlanBuilder b = new PlanBuilder("v");
    sessions(b).groupBy("bidder", "window_start").agg(Agg.count("n")).materialize("v");
    Plan plan = b.build();
    Plan.Builder forged = plan.toBuilder();
    for (int i = 0; i < forged.getNodesCount(); i++) {
      if (forged.getNodes(i).hasHashAgg()) {
        forged.setNodes(i, forged.getNodes(i).toBuilder().setSessionAgg(SessionAggNode.newBuilder().addPartitionKeys(0)));
      }
    }
    assertThatThrownBy(() -> JobCompiler.compile(forged.build(), 1, 16, 1)).isInstanceOf(PlanException.class)
        .hasMessageContaining("session aggregation, which only the compiler inserts");
  }
}

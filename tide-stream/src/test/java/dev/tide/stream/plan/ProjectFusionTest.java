package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.add;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.lit;
import static dev.tide.stream.expr.Ex.mul;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Stacked projections compile to one where that evaluates no expression more often. */
class ProjectFusionTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  private static List<PlanNode> projects(PlanBuilder b) {
    JobDefinition job = JobCompiler.compile(b.build(), 1, 16, 1);
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).filter(PlanNode::hasProject).toList();
  }

  @Test
  void aRenameOverAComputationBecomesTheComputationRenamed() {
    PlanBuilder b = new PlanBuilder("v");
    b.source("nexmark", "bid", OPTS).project(List.of(new Named(mul(col("price"), lit(2L)), "doubled"), new Named(col("auction"), "a")))
        .project(List.of(new Named(col("a"), "auction"), new Named(col("doubled"), "price2"))).materialize("v");
    List<PlanNode> projects = projects(b);
    assertThat(projects).singleElement().satisfies(p -> {
      assertThat(p.getProject().getNamesList()).startsWith("auction", "price2");
      assertThat(p.getProject().getExprs(1).getCall().getFunction()).isEqualTo("mul");
      assertThat(p.getSchemaList().stream().map(FieldProto::getName).toList()).startsWith("auction", "price2");
    });
  }

  @Test
  void aComputationOverASelectionReadsTheSelectionsInput() {
    PlanBuilder b = new PlanBuilder("v");
    b.source("nexmark", "bid", OPTS).project("price", "auction")
        .project(List.of(new Named(add(col("price"), col("auction")), "s"))).materialize("v");
    List<PlanNode> projects = projects(b);
    assertThat(projects).singleElement().satisfies(p -> {
      Expr sum = p.getProject().getExprs(0);
      assertThat(sum.getCall().getFunction()).isEqualTo("add");
      assertThat(sum.getCall().getArgsList()).allMatch(Expr::hasInputRef);
    });
  }

  @Test
  void twoComputationsStayTwo() {
    PlanBuilder b = new PlanBuilder("v");
    b.source("nexmark", "bid", OPTS).project(List.of(new Named(mul(col("price"), lit(2L)), "d")))
        .project(List.of(new Named(add(col("d"), col("d")), "q"))).materialize("v");
    assertThat(projects(b)).hasSize(2); // fused, price * 2 would be evaluated twice per row
  }

  @Test
  void aSelectionThatDuplicatesAComputationStaysApart() {
    PlanBuilder b = new PlanBuilder("v");
    b.source("nexmark", "bid", OPTS).project(List.of(new Named(mul(col("price"), lit(2L)), "d")))
        .project(List.of(new Named(col("d"), "x"), new Named(col("d"), "y"))).materialize("v");
    assertThat(projects(b)).hasSize(2);
  }

  @Test
  void aProjectionReadByTwoNodesIsKept() {
    PlanBuilder b = new PlanBuilder("v");
    Stream shared = b.source("nexmark", "bid", OPTS).project(List.of(new Named(mul(col("price"), lit(2L)), "d"),
        new Named(col("auction"), "auction")));
    shared.project("d").materialize("v1");
    shared.project("auction").materialize("v2");
    assertThat(projects(b)).hasSize(3);
  }
}

package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.add;
import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.Expr;
import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.queries.NexmarkPlans;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The columns the compiler lets each source emit, and the plan rewritten around them. */
class SourcePruningTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  private static JobDefinition compile(Plan plan) {
    return JobCompiler.compile(plan, 7, 256, 1000);
  }

  private static List<PlanNode> nodes(JobDefinition job) {
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream())
        .filter(n -> !n.hasMerge()).sorted((a, b) -> Integer.compare(a.getId(), b.getId())).toList();
  }

  /** Table name to the names of the columns its source emits, for every source of the job. */
  private static Map<String, List<String>> emitted(JobDefinition job) {
    return nodes(job).stream().filter(PlanNode::hasSource).collect(Collectors.toMap(
        n -> n.getSource().getTable(), n -> n.getSchemaList().stream().map(FieldProto::getName).toList()));
  }

  private static PlanNode node(JobDefinition job, int id) {
    return nodes(job).stream().filter(n -> n.getId() == id).findFirst().orElseThrow();
  }

  @Test
  void builtInQueriesEmitOnlyTheColumnsTheyRead() {
    assertThat(emitted(compile(NexmarkPlans.plan("q0", OPTS))))
        .containsExactly(Map.entry("bid", List.of("auction", "bidder", "price", "date_time", "_row_id")));
    assertThat(emitted(compile(NexmarkPlans.plan("q1", OPTS))))
        .containsExactly(Map.entry("bid", List.of("auction", "bidder", "price", "date_time", "_row_id")));
    assertThat(emitted(compile(NexmarkPlans.plan("q2", OPTS))))
        .as("a filter passes its input through: its condition and its consumers' columns count")
        .containsExactly(Map.entry("bid", List.of("auction", "price", "_row_id")));
    assertThat(emitted(compile(NexmarkPlans.plan("q4", OPTS)))).containsOnly(
        Map.entry("auction", List.of("id", "date_time", "expires", "category")),
        Map.entry("bid", List.of("auction", "price", "date_time", "_row_id")));
    assertThat(emitted(compile(NexmarkPlans.plan("q5", OPTS))))
        .as("the projection keeps the stream key _row_id as a hidden column")
        .containsExactly(Map.entry("bid", List.of("auction", "date_time", "_row_id")));
    assertThat(emitted(compile(NexmarkPlans.plan("q7", OPTS))))
        .containsExactly(Map.entry("bid", List.of("auction", "bidder", "price", "date_time", "_row_id")));
  }

  @Test
  void sourcesReadByJoinsEmitEveryColumn() {
    JobDefinition q3 = compile(NexmarkPlans.plan("q3", OPTS));
    for (PlanNode n : nodes(q3).stream().filter(PlanNode::hasSource).toList()) {
      assertThat(n.getSource().getColumnsList()).as("q3 %s", n.getSource().getTable()).isEmpty();
    }
  }

  @Test
  void aWindowPassesOnWhatItsConsumersReadAndAnAggregationReadsItsKeysAndArguments() {
    JobDefinition q8 = compile(NexmarkPlans.plan("q8", OPTS));
    assertThat(emitted(q8)).as("the time column, the group keys and the source's key").containsOnly(
        Map.entry("person", List.of("id", "name", "date_time")),
        Map.entry("auction", List.of("id", "date_time", "seller")));
    List<List<String>> groupKeys = new ArrayList<>();
    for (PlanNode n : nodes(q8)) {
      if (n.hasWindow()) {
        List<FieldProto> in = node(q8, n.getInputs(0)).getSchemaList();
        assertThat(in.get(n.getWindow().getTimeColumn()).getName()).isEqualTo("date_time");
        assertThat(n.getSchemaList().subList(in.size(), in.size() + 2)).extracting(FieldProto::getName)
            .containsExactly("window_start", "window_end");
      }
      if (n.hasLocalAgg()) { // the first phase of each aggregation, reading the window
        List<FieldProto> in = node(q8, n.getInputs(0)).getSchemaList();
        groupKeys.add(n.getLocalAgg().getGroupKeysList().stream().map(k -> in.get(k).getName()).toList());
      }
    }
    assertThat(groupKeys).containsExactlyInAnyOrder(List.of("id", "name", "window_start"), List.of("seller", "window_start"));
  }

  @ParameterizedTest
  @MethodSource("dev.tide.stream.plan.JobCompilerTest#queries")
  void pruningChangesNothingPastTheFirstProject(String q) {
    Plan plan = NexmarkPlans.plan(q, OPTS);
    JobDefinition job = compile(plan);
    JobCompilerTest.checkInvariants(job);
    for (PlanNode original : plan.getNodesList()) {
      PlanNode compiled = node(job, original.getId());
      if (compiled.hasSource() || compiled.hasFilter() || compiled.hasWindow()) {
        continue; // these may shrink
      }
      if (!compiled.hasProject()) {
        assertThat(compiled.getSchemaList()).as("%s node %d", q, original.getId()).isEqualTo(original.getSchemaList());
        continue;
      }
      // A project keeps its output; its references name the same source columns as before.
      assertThat(compiled.getSchemaList()).isEqualTo(original.getSchemaList());
      List<FieldProto> before = plan.getNodes(original.getInputs(0)).getSchemaList();
      List<FieldProto> after = node(job, compiled.getInputs(0)).getSchemaList();
      for (int e = 0; e < original.getProject().getExprsCount(); e++) {
        assertThat(referencedNames(compiled.getProject().getExprs(e), after))
            .isEqualTo(referencedNames(original.getProject().getExprs(e), before));
      }
    }
  }

  @Test
  void sourceSchemaFiltersAndKeysFollowTheKeptColumns() {
    PlanBuilder b = new PlanBuilder("p");
    b.source("nexmark", "auction", OPTS).filter(eq(col("category"), lit(10L))).filter(gt(col("reserve"), lit(0L)))
        .project(List.of(new Named(add(col("seller"), lit(1L)), "next_seller"))).materialize("p");
    Plan plan = b.build();
    JobDefinition job = compile(plan);
    PlanNode source = node(job, 0);
    // Kept in table order: id (the key), reserve, seller, category.
    assertThat(source.getSource().getColumnsList()).containsExactly(0, 4, 7, 8);
    assertThat(source.getSchemaList()).extracting(FieldProto::getName).containsExactly("id", "reserve", "seller", "category");
    assertThat(source.getStreamKeyList()).containsExactly(0);
    PlanNode category = node(job, 1);
    PlanNode reserve = node(job, 2);
    assertThat(category.getSchemaList()).isEqualTo(source.getSchemaList());
    assertThat(reserve.getSchemaList()).isEqualTo(source.getSchemaList());
    assertThat(category.getFilter().getCondition().getCall().getArgs(0).getInputRef()).isEqualTo(3);
    assertThat(reserve.getFilter().getCondition().getCall().getArgs(0).getInputRef()).isEqualTo(1);
    PlanNode project = node(job, 3);
    assertThat(project.getProject().getExprs(0).getCall().getArgs(0).getInputRef()).isEqualTo(2);
    assertThat(project.getProject().getExprs(1).getInputRef()).as("the hidden key").isEqualTo(0);
    assertThat(project.getSchemaList()).isEqualTo(plan.getNodes(3).getSchemaList());
  }

  @Test
  void twoProjectionsOfOneSourceKeepTheUnionOfTheirColumns() {
    PlanBuilder b = new PlanBuilder("two");
    Stream bids = b.source("nexmark", "bid", OPTS);
    bids.project("price").materialize("prices");
    bids.project("channel").materialize("channels");
    assertThat(emitted(compile(b.build()))).containsExactly(Map.entry("bid", List.of("price", "channel", "_row_id")));
  }

  @Test
  void aSourceAnyOfWhoseConsumersReadsEveryColumnIsNotPruned() {
    PlanBuilder b = new PlanBuilder("mixed");
    Stream bids = b.source("nexmark", "bid", OPTS);
    bids.project("price").materialize("prices");
    bids.filter(gt(col("price"), lit(10L))).materialize("expensive");
    JobDefinition job = compile(b.build());
    assertThat(node(job, 0).getSource().getColumnsList()).isEmpty();
    assertThat(node(job, 0).getSchemaCount()).isEqualTo(8);
  }

  @Test
  void compilingACompiledSourceAgainKeepsItsColumns() {
    PlanBuilder b = new PlanBuilder("again");
    b.source("nexmark", "bid", OPTS).filter(gt(col("price"), lit(10L))).project("price", "date_time").materialize("again");
    JobDefinition once = compile(b.build());
    Plan replanned = Plan.newBuilder().setName("again").addAllNodes(nodes(once).stream()
        .map(n -> n.toBuilder().clearInputs().addAllInputs(n.getId() == 0 ? List.of() : List.of(n.getId() - 1)).build())
        .toList()).build();
    JobDefinition twice = compile(replanned);
    assertThat(node(twice, 0).getSource().getColumnsList()).isEqualTo(node(once, 0).getSource().getColumnsList())
        .containsExactly(2, 5, 7);
    assertThat(node(twice, 2).getProject()).isEqualTo(node(once, 2).getProject());
  }

  @Test
  void aReferenceOutsideTheSourceSchemaIsRefusedByName() {
    PlanBuilder b = new PlanBuilder("bad");
    b.source("nexmark", "bid", OPTS).project("price").materialize("bad");
    Plan plan = b.build();
    PlanNode project = plan.getNodes(1);
    Expr bad = project.getProject().getExprs(0).toBuilder().setInputRef(8).build();
    Plan broken = plan.toBuilder().setNodes(1, project.toBuilder().setProject(project.getProject().toBuilder().setExprs(0, bad))).build();
    assertThatThrownBy(() -> compile(broken)).isInstanceOf(PlanException.class)
        .hasMessageContaining("project node 1 refers to column 8").hasMessageContaining("columns 0..7");
  }

  private static Set<String> referencedNames(Expr e, List<FieldProto> input) {
    List<String> out = new ArrayList<>();
    collect(e, input, out);
    return Set.copyOf(out);
  }

  private static void collect(Expr e, List<FieldProto> input, List<String> out) {
    if (e.hasInputRef()) {
      out.add(input.get(e.getInputRef()).getName());
    } else if (e.hasCall()) {
      e.getCall().getArgsList().forEach(a -> collect(a, input, out));
    }
  }
}

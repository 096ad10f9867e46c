package dev.tide.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.FieldProto;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.stream.plan.JobCompiler;
import dev.tide.stream.plan.PlanException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The built-in jobs are the shipped SQL files, planned into the shapes the hand-written plans had:
 * q5 and q7 as group tops (not joins against a MAX), windows emitting on close, sources generating
 * only the columns read. The results of these plans are checked against plain Java in tide-cli
 * (SqlNexmarkSuiteTest, NexmarkEndToEndTest).
 */
class NexmarkJobsTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");

  private static JobDefinition compile(String query) {
    return JobCompiler.compile(NexmarkJobs.plan(query, OPTS, NexmarkJobs.Terminal.DIGEST), 1, 64, 1);
  }

  private static List<PlanNode> nodes(JobDefinition job) {
    return job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).toList();
  }

  private static List<PlanNode.KindCase> kinds(JobDefinition job) {
    return nodes(job).stream().map(PlanNode::getKindCase).toList();
  }

  /** The job of a view {@code v} of {@code query} over the Nexmark sources, compiled. */
  private static JobDefinition view(String query) {
    return JobCompiler.compile(SqlEngine.plan("v", query, 0, NexmarkJobs.sources(OPTS), Map.of(), st -> st.materialize("v"))
        .plan(), 1, 64, 1);
  }

  @Test
  void everyBuiltInQueryPlansAndCompiles() {
    assertThat(NexmarkJobs.names()).startsWith("q0", "q1", "q2").contains("q8", "q22").doesNotContain("q13");
    for (String q : NexmarkJobs.names()) {
      JobDefinition job = compile(q);
      assertThat(job.getName()).isEqualTo(q);
      assertThat(kinds(job)).as(q).contains(PlanNode.KindCase.DIGEST);
    }
  }

  @Test
  void q5AndQ7AreGroupTopsOverOneSource() {
    for (String q : List.of("q5", "q7")) {
      List<PlanNode.KindCase> kinds = kinds(compile(q));
      assertThat(kinds).as(q).contains(PlanNode.KindCase.GROUP_TOP).doesNotContain(PlanNode.KindCase.HASH_JOIN);
      assertThat(kinds.stream().filter(k -> k == PlanNode.KindCase.SOURCE)).as(q).hasSize(1);
    }
    assertThat(kinds(compile("q7"))).as("Nexmark columns are never null: no null filter before the top")
        .doesNotContain(PlanNode.KindCase.FILTER);
    assertThat(nodes(compile("q5")).stream().filter(PlanNode::hasHashAgg)).singleElement()
        .satisfies(a -> assertThat(a.getHashAgg().getEmitOnWindowClose()).isTrue());
    assertThat(nodes(compile("q8")).stream().filter(PlanNode::hasHashAgg)).hasSize(2)
        .allSatisfy(a -> assertThat(a.getHashAgg().getEmitOnWindowClose()).isTrue());
  }

  @Test
  void aWindowsEndIsNoKeyNextToItsStart() {
    // q5 and q8 group by window_start and window_end; q8 also joins on both: the end is derived.
    assertThat(nodes(compile("q5")).stream().filter(PlanNode::hasHashAgg)).singleElement()
        .satisfies(a -> assertThat(a.getHashAgg().getGroupKeysList()).hasSize(2)); // auction, window_start
    JobDefinition q8 = compile("q8");
    assertThat(nodes(q8).stream().filter(PlanNode::hasHashAgg).map(a -> a.getHashAgg().getGroupKeysCount())).containsExactlyInAnyOrder(3, 2);
    assertThat(nodes(q8).stream().filter(PlanNode::hasHashJoin)).singleElement()
        .satisfies(j -> assertThat(j.getHashJoin().getLeftKeysList()).hasSize(2)); // id = seller, start = start
    // Selected, the end is the start plus the size (SqlEndToEndTest checks the values).
    JobDefinition ends = view("SELECT auction, window_end, window_start, COUNT(*) AS n FROM TABLE(HOP(TABLE bid,"
        + " DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end");
    assertThat(nodes(ends).stream().filter(PlanNode::hasHashAgg)).singleElement()
        .satisfies(a -> assertThat(a.getHashAgg().getGroupKeysList()).hasSize(2));
    assertThat(table(ends, "v").getColumnsList().stream().map(FieldProto::getName)).startsWith("auction", "window_end", "window_start", "n");
  }

  private static dev.tide.proto.plan.TableCatalog table(JobDefinition job, String name) {
    return job.getTablesList().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void sourcesGenerateOnlyTheColumnsReadThroughWindows() {
    PlanNode source = nodes(compile("q7")).stream().filter(PlanNode::hasSource).findFirst().orElseThrow();
    assertThat(source.getSchemaList().stream().map(FieldProto::getName))
        .containsExactlyInAnyOrder("auction", "bidder", "price", "date_time", "_row_id");
    PlanNode q5Source = nodes(compile("q5")).stream().filter(PlanNode::hasSource).findFirst().orElseThrow();
    assertThat(q5Source.getSchemaList().stream().map(FieldProto::getName)).containsExactlyInAnyOrder("auction", "date_time", "_row_id");
  }

  @Test
  void optionsReachEverySourceAndBadOnesAreRefused() {
    JobDefinition job = JobCompiler.compile(NexmarkJobs.plan("q3", Map.of("events", "1234", "rate", "500", "splits", "3"),
        NexmarkJobs.Terminal.MATERIALIZE), 1, 64, 1);
    assertThat(nodes(job).stream().filter(PlanNode::hasSource)).hasSize(2).allSatisfy(s -> {
      assertThat(s.getSource().getOptionsMap()).containsEntry("events", "1234").containsEntry("rate", "500");
      assertThat(s.getSource().getSplitCount()).isEqualTo(3);
    });
    assertThatThrownBy(() -> NexmarkJobs.plan("q3", Map.of("events", "-5"))).isInstanceOf(PlanException.class)
        .hasMessageContaining("events").hasMessageContaining("-5");
    assertThatThrownBy(() -> NexmarkJobs.plan("q3", Map.of("x') , (y", "1"))).isInstanceOf(PlanException.class)
        .hasMessageContaining("is not an option name");
    assertThatThrownBy(() -> NexmarkJobs.plan("q99", OPTS)).isInstanceOf(PlanException.class)
        .hasMessageContaining("unknown query 'q99'").hasMessageContaining("q22");
  }

  @Test
  void onlyAJoinWithTheMaximumOfTheSameRelationOnItsKeysBecomesAGroupTop() {
    String window = "TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND))";
    String max = "(SELECT window_start, MAX(price) AS m FROM " + window + " GROUP BY window_start) AS m";
    // the maximum on the left, the comparison written the other way round
    assertThat(kinds(view("SELECT b.auction FROM " + max + " JOIN " + window + " AS b ON m.m <= b.price AND m.window_start"
        + " = b.window_start"))).contains(PlanNode.KindCase.GROUP_TOP).doesNotContain(PlanNode.KindCase.HASH_JOIN);
    // the maximum of other rows (filtered), without the window key, or bids at most the maximum: joins
    String filtered = "(SELECT window_start, MAX(price) AS m FROM " + window + " WHERE auction > 5 GROUP BY window_start) AS m";
    for (String q : List.of(
        "SELECT b.auction FROM " + window + " AS b JOIN " + filtered + " ON b.price = m.m AND b.window_start = m.window_start",
        "SELECT b.auction FROM " + window + " AS b JOIN " + max + " ON b.price = m.m",
        "SELECT b.auction FROM " + window + " AS b JOIN " + max + " ON b.price <= m.m AND b.window_start = m.window_start")) {
      assertThat(kinds(view(q))).as(q).contains(PlanNode.KindCase.HASH_JOIN).doesNotContain(PlanNode.KindCase.GROUP_TOP);
    }
  }
}

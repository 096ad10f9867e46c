package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.proto.plan.DispatchType;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.FragmentEdge;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.HashAggNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.queries.NexmarkPlans;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The fragments, exchanges and state tables the compiler derives from plans. */
class JobCompilerTest {
  private static final Map<String, String> OPTS = Map.of("events", "1000");
  private static final int BASE = 1000;

  static Set<String> queries() {
    return NexmarkPlans.names();
  }

  private static JobDefinition compile(String q) {
    return JobCompiler.compile(NexmarkPlans.plan(q, OPTS), 7, 256, BASE);
  }

  private static JobDefinition compile(PlanBuilder b) {
    return JobCompiler.compile(b.build(), 7, 256, BASE);
  }

  // ---- helpers

  private static List<PlanNode.KindCase> kinds(Fragment f) {
    return f.getNodesList().stream().map(PlanNode::getKindCase).toList();
  }

  /** The only fragment whose nodes include this kind. */
  private static Fragment fragmentWith(JobDefinition job, PlanNode.KindCase kind) {
    List<Fragment> found = job.getFragmentsList().stream().filter(f -> kinds(f).contains(kind)).toList();
    assertThat(found).as("fragments with %s", kind).hasSize(1);
    return found.get(0);
  }

  private static List<Fragment> fragmentsWith(JobDefinition job, PlanNode.KindCase kind) {
    return job.getFragmentsList().stream().filter(f -> kinds(f).contains(kind)).toList();
  }

  private static List<FragmentEdge> edgesInto(JobDefinition job, Fragment f) {
    return job.getEdgesList().stream().filter(e -> e.getDownstreamFragmentId() == f.getFragmentId()).toList();
  }

  private static FragmentEdge edge(JobDefinition job, Fragment up, Fragment down) {
    List<FragmentEdge> es = job.getEdgesList().stream()
        .filter(e -> e.getUpstreamFragmentId() == up.getFragmentId() && e.getDownstreamFragmentId() == down.getFragmentId()).toList();
    assertThat(es).as("edges %d -> %d", up.getFragmentId(), down.getFragmentId()).hasSize(1);
    return es.get(0);
  }

  private static TableCatalog table(JobDefinition job, String name) {
    return job.getTablesList().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
  }

  private static Fragment root(JobDefinition job, FragmentEdge e) {
    return job.getFragments(e.getUpstreamFragmentId());
  }

  private static PlanNode rootNode(Fragment f) {
    return f.getNodes(f.getNodesCount() - 1);
  }

  // ---- built-in queries

  @Test
  void q0IsASourceFragmentHashedByRowIdIntoTheView() {
    JobDefinition job = compile("q0");
    assertThat(job.getFragmentsCount()).isEqualTo(2);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    Fragment mv = fragmentWith(job, PlanNode.KindCase.MATERIALIZE);
    assertThat(src.getHasSource()).isTrue();
    assertThat(kinds(src)).containsExactly(PlanNode.KindCase.SOURCE, PlanNode.KindCase.PROJECT);
    assertThat(kinds(mv)).containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.MATERIALIZE);
    FragmentEdge e = edge(job, src, mv);
    assertThat(e.getType()).isEqualTo(DispatchType.HASH);
    int rowId = columnIndex(rootNode(src), "_row_id");
    assertThat(e.getDistKeyList()).containsExactly(rowId);
    TableCatalog view = table(job, "q0");
    assertThat(view.getIsMv()).isTrue();
    assertThat(view.getPkList()).containsExactly(rowId);
    assertThat(view.getDistKeyList()).containsExactly(rowId);
    assertThat(mv.getSingleton()).isFalse();
    assertThat(job.getVnodeCount()).isEqualTo(256);
    assertThat(job.getJobId()).isEqualTo(7);
  }

  @Test
  void aDigestChainsOntoItsInputAndKeepsOneRowPerActor() {
    JobDefinition job = JobCompiler.compile(NexmarkPlans.plan("q0", OPTS, NexmarkPlans.Terminal.DIGEST), 7, 256, BASE);
    assertThat(job.getFragmentsCount()).isEqualTo(1);
    Fragment only = job.getFragments(0);
    assertThat(kinds(only)).containsExactly(PlanNode.KindCase.SOURCE, PlanNode.KindCase.PROJECT, PlanNode.KindCase.DIGEST);
    PlanNode digest = rootNode(only);
    TableCatalog t = table(job, "q0");
    assertThat(digest.getDigest().getTableId()).isEqualTo(t.getTableId());
    assertThat(digest.getDigest().getColumnsList()).containsExactly(0, 1, 2, 3); // not the hidden _row_id
    assertThat(t.getIsDigest()).isTrue();
    assertThat(t.getIsMv()).isFalse();
    assertThat(t.getPkList()).containsExactly(0);
    assertThat(t.getDistKeyList()).isEmpty();
    assertThat(only.getStateTableIdsList()).contains(t.getTableId());
  }

  @Test
  void aDigestFingerprintsOnlyVisibleColumns() {
    // q3 projects away the join's stream key (auction id, person id): it stays as hidden columns.
    JobDefinition job = JobCompiler.compile(NexmarkPlans.plan("q3", OPTS, NexmarkPlans.Terminal.DIGEST), 7, 256, BASE);
    PlanNode digest = rootNode(fragmentWith(job, PlanNode.KindCase.DIGEST));
    assertThat(digest.getSchemaCount()).isGreaterThan(4);
    assertThat(digest.getDigest().getColumnsList()).containsExactly(0, 1, 2, 3);
  }

  @Test
  void q5PreCountsPerChunkHashesByAuctionAndWindowClosesWindowsThenKeepsTheLeadersHashedByWindow() {
    JobDefinition job = compile("q5");
    assertThat(job.getFragmentsCount()).isEqualTo(3);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    assertThat(kinds(src)).containsExactly(PlanNode.KindCase.SOURCE, PlanNode.KindCase.PROJECT, PlanNode.KindCase.WINDOW,
        PlanNode.KindCase.LOCAL_AGG);
    Fragment counts = fragmentWith(job, PlanNode.KindCase.HASH_AGG);
    Fragment top = fragmentWith(job, PlanNode.KindCase.GROUP_TOP);
    assertThat(kinds(top)).containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.GROUP_TOP, PlanNode.KindCase.PROJECT,
        PlanNode.KindCase.MATERIALIZE);

    // count(*) by (auction, window_start): each chunk pre-counted, the partial counts hashed by both keys.
    PlanNode window = src.getNodes(2);
    PlanNode local = rootNode(src);
    assertThat(local.getLocalAgg().getGroupKeysList())
        .containsExactly(columnIndex(window, "auction"), columnIndex(window, "window_start"));
    assertThat(local.getSchemaList()).extracting(f -> f.getName()).containsExactly("auction", "window_start", "_row_count", "_s0_count");
    FragmentEdge toCounts = edge(job, src, counts);
    assertThat(toCounts.getType()).isEqualTo(DispatchType.HASH);
    assertThat(toCounts.getDistKeyList()).containsExactly(0, 1);
    HashAggNode countAgg = rootNodeOf(counts, PlanNode.KindCase.HASH_AGG).getHashAgg();
    assertThat(countAgg.getGroupKeysList()).containsExactly(0, 1);
    assertThat(countAgg.getCalls(0).getArg()).isEqualTo(3);
    // Counts are emitted once, as windows close (window_start is group key 1), so they are append-only:
    // the top filter runs before the exchange and the group top keeps each window's leaders only.
    assertThat(countAgg.getEmitOnWindowClose()).isTrue();
    assertThat(countAgg.getWindowKey()).isEqualTo(1);
    assertThat(kinds(counts)).containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.HASH_AGG, PlanNode.KindCase.TOP_FILTER);
    FragmentEdge toTop = edge(job, counts, top);
    assertThat(toTop.getType()).isEqualTo(DispatchType.HASH);
    assertThat(toTop.getDistKeyList()).containsExactly(1);
    assertThat(job.getEdgesCount()).isEqualTo(2);
    PlanNode groupTop = rootNodeOf(top, PlanNode.KindCase.GROUP_TOP);
    assertThat(groupTop.getGroupTop().getRetractingInput()).isFalse();
    TableCatalog rows = table(job, "q5." + groupTop.getId() + ".top");
    assertThat(rows.getPkList()).containsExactly(1, 0);
    assertThat(rows.getDistKeyList()).containsExactly(1);
    String agg = "q5." + rootNodeOf(counts, PlanNode.KindCase.HASH_AGG).getId() + ".agg";
    assertThat(table(job, agg).getColumnsList()).extracting(f -> f.getName())
        .containsExactly("auction", "window_start", "_row_count", "_s0_count");
    assertThat(table(job, agg).getDistKeyList()).containsExactly(0, 1);
    // The view is hashed by window_start as the group top delivers it: no further exchange.
    assertThat(table(job, "q5").getDistKeyList()).containsExactly(2);
    assertThat(job.getFragmentsList()).noneMatch(Fragment::getSingleton);
  }

  @Test
  void q7FiltersBidsBeforeTheExchangeAndKeepsTheLeadersHashedByWindowNextToTheView() {
    JobDefinition job = compile("q7");
    assertThat(job.getFragmentsCount()).isEqualTo(2);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    Fragment top = fragmentWith(job, PlanNode.KindCase.GROUP_TOP);
    assertThat(kinds(src)).containsExactly(PlanNode.KindCase.SOURCE, PlanNode.KindCase.PROJECT, PlanNode.KindCase.WINDOW,
        PlanNode.KindCase.TOP_FILTER);
    assertThat(kinds(top)).containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.GROUP_TOP, PlanNode.KindCase.PROJECT,
        PlanNode.KindCase.MATERIALIZE);
    PlanNode filter = rootNode(src);
    int windowStart = columnIndex(filter, "window_start");
    FragmentEdge e = edge(job, src, top);
    assertThat(e.getType()).isEqualTo(DispatchType.HASH);
    assertThat(e.getDistKeyList()).containsExactly(windowStart);

    PlanNode groupTop = top.getNodes(1);
    TableCatalog leaders = table(job, "q7." + groupTop.getId() + ".top");
    assertThat(groupTop.getGroupTop().getTableId()).isEqualTo(leaders.getTableId());
    assertThat(leaders.getPkList()).containsExactly(windowStart, columnIndex(filter, "_row_id"));
    assertThat(leaders.getDistKeyList()).containsExactly(windowStart);
    TableCatalog view = table(job, "q7");
    assertThat(view.getVisibleColumns()).isEqualTo(4);
    List<String> names = view.getColumnsList().stream().map(c -> c.getName()).toList();
    assertThat(view.getDistKeyList()).containsExactly(names.indexOf("_window_start")); // hidden
    assertThat(view.getPkList()).containsExactlyInAnyOrder(names.indexOf("_window_start"), names.indexOf("_row_id"));
  }

  @Test
  void groupTopWithoutGroupKeysIsASingletonAndItsFilterStaysWithTheSource() {
    PlanBuilder b = new PlanBuilder("top");
    b.source("nexmark", "bid", OPTS).groupBy().minRows("price").materialize("top");
    JobDefinition job = compile(b);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    Fragment top = fragmentWith(job, PlanNode.KindCase.GROUP_TOP);
    assertThat(kinds(src)).containsExactly(PlanNode.KindCase.SOURCE, PlanNode.KindCase.TOP_FILTER);
    assertThat(top.getSingleton()).isTrue();
    assertThat(edge(job, src, top).getType()).isEqualTo(DispatchType.SIMPLE);
    checkInvariants(job);
  }

  @Test
  void groupTopOverARetractingInputHasNoFilterAndKeepsEveryRowOrderedByValue() {
    PlanBuilder b = new PlanBuilder("rt");
    b.source("nexmark", "bid", OPTS).project("auction", "bidder", "price", "_row_id")
        .groupBy("auction", "bidder").agg(Agg.max("price", "hi")).groupBy("auction").maxRows("hi").materialize("rt");
    JobDefinition job = compile(b);
    assertThat(job.getFragmentsList()).allSatisfy(f -> assertThat(kinds(f)).doesNotContain(PlanNode.KindCase.TOP_FILTER));
    Fragment top = fragmentWith(job, PlanNode.KindCase.GROUP_TOP);
    PlanNode groupTop = rootNodeOf(top, PlanNode.KindCase.GROUP_TOP);
    assertThat(groupTop.getGroupTop().getRetractingInput()).isTrue();
    TableCatalog rows = table(job, "rt." + groupTop.getId() + ".top");
    // (auction, hi, bidder): the group, its rows by value, then the input's stream key.
    assertThat(rows.getPkList()).containsExactly(0, 2, 1);
    assertThat(rows.getDistKeyList()).containsExactly(0);
    checkInvariants(job);
  }

  private static PlanNode rootNodeOf(Fragment f, PlanNode.KindCase kind) {
    return f.getNodesList().stream().filter(n -> n.getKindCase() == kind).findFirst().orElseThrow();
  }

  // ---- two-phase aggregation

  @Test
  void decomposableAggregationBehindAnExchangeIsSplitIntoALocalAndAFinalPhase() {
    PlanBuilder b = new PlanBuilder("split");
    b.source("nexmark", "bid", OPTS).project("auction", "bidder", "price", "_row_id")
        .groupBy("bidder", "auction").agg(Agg.sum("price", "total"), Agg.count("n"), Agg.max("price", "hi"), Agg.avg("price", "mean"))
        .materialize("split");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    PlanNode local = rootNode(src);
    assertThat(local.getLocalAgg().getGroupKeysList()).containsExactly(1, 0);
    assertThat(local.getSchemaList()).extracting(f -> f.getName()).containsExactly("bidder", "auction", "_row_count",
        "_s0_sum", "_s0_count", "_s1_count", "_s2_value", "_s3_sum", "_s3_count");
    Fragment agg = fragmentWith(job, PlanNode.KindCase.HASH_AGG);
    var h = rootNodeOf(agg, PlanNode.KindCase.HASH_AGG).getHashAgg();
    assertThat(h.getPartialInput()).isTrue();
    assertThat(h.getGroupKeysList()).containsExactly(0, 1);
    assertThat(h.getCallsList()).extracting(c -> c.getArg()).containsExactly(3, 5, 6, 7);
    assertThat(edge(job, src, agg).getDistKeyList()).containsExactly(0, 1);
    // The result table is the one the one-phase aggregation would have.
    assertThat(table(job, "split.2.agg").getColumnsList()).extracting(f -> f.getName()).containsExactly("bidder", "auction",
        "_row_count", "_s0_sum", "_s0_count", "_s1_count", "_s2_value", "_s3_sum", "_s3_count");
  }

  @Test
  void countWithoutGroupKeysIsPreCountedBeforeItsSimpleEdge() {
    PlanBuilder b = new PlanBuilder("total");
    b.source("nexmark", "bid", OPTS).groupBy().agg(Agg.count("n")).materialize("total");
    JobDefinition job = compile(b);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    assertThat(rootNode(src).getLocalAgg().getGroupKeysCount()).isZero();
    assertThat(edge(job, src, fragmentWith(job, PlanNode.KindCase.HASH_AGG)).getType()).isEqualTo(DispatchType.SIMPLE);
  }

  @Test
  void aggregationsThatDoNotDecomposeOrShareTheirInputStayInOnePhase() {
    PlanBuilder b = new PlanBuilder("whole");
    Stream bids = b.source("nexmark", "bid", OPTS);
    // A DOUBLE sum: pre-summing would change its rounding.
    bids.project(List.of(new PlanBuilder.Named(dev.tide.stream.expr.Ex.mul(lit(0.5), col("price")), "p"),
            new PlanBuilder.Named(col("auction"), "auction"), new PlanBuilder.Named(col("_row_id"), "_row_id")))
        .groupBy("auction").agg(Agg.sum("p", "s")).materialize("a");
    // MIN over a retracting input: the final phase needs the multiset.
    Stream counts = b.source("nexmark", "bid", OPTS).groupBy("auction", "bidder").agg(Agg.count("n"));
    counts.groupBy("auction").agg(Agg.min("n", "lo")).materialize("b");
    // An input with a second consumer: no fragment end for a local phase.
    Stream shared = b.source("nexmark", "bid", OPTS).project("auction", "bidder", "_row_id");
    shared.groupBy("auction").agg(Agg.count("n")).materialize("c");
    shared.materialize("d");
    JobDefinition job = compile(b);
    checkInvariants(job);
    List<PlanNode> aggs = job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).filter(PlanNode::hasHashAgg).toList();
    assertThat(aggs).hasSize(4);
    // Only the counts by (auction, bidder) of a private source are split.
    assertThat(aggs).filteredOn(n -> n.getHashAgg().getPartialInput()).hasSize(1)
        .allMatch(n -> n.getHashAgg().getGroupKeysCount() == 2);
    assertThat(job.getFragmentsList().stream().flatMap(f -> f.getNodesList().stream()).filter(PlanNode::hasLocalAgg).count()).isEqualTo(1);
  }

  @Test
  void compilerOnlyNodesInAUserPlanAreRefused() {
    PlanBuilder b = new PlanBuilder("own");
    b.source("nexmark", "bid", OPTS).groupBy("auction").agg(Agg.count("n")).materialize("own");
    var plan = b.build().toBuilder();
    plan.getNodesBuilder(1).getHashAggBuilder().setPartialInput(true);
    assertThatThrownBy(() -> JobCompiler.compile(plan.build(), 7, 256, BASE)).isInstanceOf(PlanException.class)
        .hasMessageContaining("node 1 is a partial-input aggregation, which only the compiler inserts");
  }

  @Test
  void aWindowCloseTheInputCannotBackIsRefused() {
    PlanBuilder b = new PlanBuilder("own");
    b.source("nexmark", "bid", OPTS).project("auction", "date_time").tumble("date_time", java.time.Duration.ofSeconds(10))
        .groupBy("auction", "window_start").emitOnWindowClose("window_start").agg(Agg.count("n")).materialize("own");
    var plan = b.build().toBuilder();
    int agg = plan.getNodesList().stream().filter(PlanNode::hasHashAgg).findFirst().orElseThrow().getId();
    plan.getNodesBuilder(agg).getHashAggBuilder().setWindowKey(0);
    assertThatThrownBy(() -> JobCompiler.compile(plan.build(), 7, 256, BASE)).isInstanceOf(PlanException.class)
        .hasMessageContaining("hash_agg node " + agg + " emits on window close, but its window column 0 carries no watermark");
    plan.getNodesBuilder(agg).getHashAggBuilder().setWindowKey(2);
    assertThatThrownBy(() -> JobCompiler.compile(plan.build(), 7, 256, BASE)).isInstanceOf(PlanException.class)
        .hasMessageContaining("window_key 2 is not one of its 2 group keys");
    plan.getNodesBuilder(agg).getHashAggBuilder().setWindowKey(1);
    JobCompiler.compile(plan.build(), 7, 256, BASE); // as built
  }

  // ---- join partitioning

  @Test
  void joinPartitionedByOneKeyPairHashesBothSidesAndItsTablesByThatPairOnly() {
    PlanBuilder b = new PlanBuilder("pj");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "bidder", "price", "_row_id");
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "seller", "reserve");
    bids.join(auctions, List.of("auction", "price"), List.of("id", "reserve"), List.of("auction")).materialize("pj");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment join = fragmentWith(job, PlanNode.KindCase.HASH_JOIN);
    List<FragmentEdge> in = edgesInto(job, join);
    assertThat(in).hasSize(2).allMatch(e -> e.getType() == DispatchType.HASH);
    assertThat(in).extracting(e -> e.getDistKeyList()).containsExactlyInAnyOrder(List.of(0), List.of(0));
    assertThat(table(job, "pj.4.left").getDistKeyList()).containsExactly(0);
    assertThat(table(job, "pj.4.left").getPkList()).containsExactly(0, 2, 3);
    assertThat(table(job, "pj.4.right").getDistKeyList()).containsExactly(0);
  }

  @ParameterizedTest
  @MethodSource("queries")
  void invariantsOfEveryBuiltInQuery(String q) {
    checkInvariants(compile(q));
  }

  // ---- hand-built plans

  @Test
  void countWithoutGroupKeysIsASingletonFedByASimpleEdge() {
    PlanBuilder b = new PlanBuilder("total");
    b.source("nexmark", "bid", OPTS).groupBy().agg(Agg.count("n")).materialize("total");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment agg = fragmentWith(job, PlanNode.KindCase.HASH_AGG);
    assertThat(agg.getSingleton()).isTrue();
    assertThat(kinds(agg)).containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.HASH_AGG, PlanNode.KindCase.MATERIALIZE);
    List<FragmentEdge> in = edgesInto(job, agg);
    assertThat(in).hasSize(1);
    assertThat(in.get(0).getType()).isEqualTo(DispatchType.SIMPLE);
    assertThat(in.get(0).getDistKeyList()).isEmpty();
    assertThat(fragmentWith(job, PlanNode.KindCase.SOURCE).getSingleton()).isFalse();
    assertThat(table(job, "total").getPkList()).isEmpty();
    assertThat(table(job, "total").getDistKeyList()).isEmpty();
    assertThat(table(job, "total.1.agg").getDistKeyList()).isEmpty();
  }

  @Test
  void fanOutWithoutExchangeUsesNoShuffleEdges() {
    PlanBuilder b = new PlanBuilder("fan");
    Stream counts = b.source("nexmark", "bid", OPTS).groupBy("auction").agg(Agg.count("n"));
    counts.materialize("all_counts");
    counts.filter(gt(col("n"), lit(1L))).materialize("repeat_counts");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment agg = fragmentWith(job, PlanNode.KindCase.HASH_AGG);
    assertThat(kinds(agg)).as("a stream with two consumers ends its fragment")
        .containsExactly(PlanNode.KindCase.MERGE, PlanNode.KindCase.HASH_AGG);
    List<FragmentEdge> out = job.getEdgesList().stream().filter(e -> e.getUpstreamFragmentId() == agg.getFragmentId()).toList();
    assertThat(out).hasSize(2).allSatisfy(e -> {
      assertThat(e.getType()).isEqualTo(DispatchType.NO_SHUFFLE);
      assertThat(e.getDistKeyList()).isEmpty();
    });
    assertThat(out).extracting(FragmentEdge::getDownstreamFragmentId).doesNotHaveDuplicates();
  }

  @Test
  void sourceFanOutToTwoSinksUsesNoShuffleEdges() {
    PlanBuilder b = new PlanBuilder("copy");
    Stream bids = b.source("nexmark", "bid", OPTS);
    bids.sink("/tmp/all");
    bids.filter(gt(col("price"), lit(100L))).sink("/tmp/expensive");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment src = fragmentWith(job, PlanNode.KindCase.SOURCE);
    assertThat(kinds(src)).containsExactly(PlanNode.KindCase.SOURCE);
    assertThat(job.getEdgesList()).hasSize(2).allSatisfy(e -> {
      assertThat(e.getUpstreamFragmentId()).isEqualTo(src.getFragmentId());
      assertThat(e.getType()).isEqualTo(DispatchType.NO_SHUFFLE);
    });
    assertThat(job.getTablesList()).extracting(TableCatalog::getName).containsExactly("copy.0.splits");
  }

  @Test
  void singletonFanOutMakesItsConsumersSingletons() {
    PlanBuilder b = new PlanBuilder("fan");
    Stream total = b.source("nexmark", "bid", OPTS).groupBy().agg(Agg.count("n"));
    total.materialize("a");
    total.filter(gt(col("n"), lit(10L))).materialize("b");
    JobDefinition job = compile(b);
    checkInvariants(job);
    assertThat(job.getFragmentsList()).filteredOn(f -> !f.getHasSource()).hasSize(3).allMatch(Fragment::getSingleton);
  }

  @Test
  void joinWithASingletonSideBringsTheOtherSideByASimpleEdge() {
    PlanBuilder b = new PlanBuilder("top");
    Stream bids = b.source("nexmark", "bid", OPTS);
    Stream max = b.source("nexmark", "bid", OPTS).groupBy().agg(Agg.max("price", "maxprice"));
    bids.join(max, List.of("price"), List.of("maxprice")).project("auction", "price", "_row_id").materialize("top");
    JobDefinition job = compile(b);
    checkInvariants(job);
    Fragment join = fragmentWith(job, PlanNode.KindCase.HASH_JOIN);
    assertThat(join.getSingleton()).isTrue();
    assertThat(edgesInto(job, join)).extracting(FragmentEdge::getType).containsOnly(DispatchType.SIMPLE, DispatchType.NO_SHUFFLE)
        .contains(DispatchType.SIMPLE);
    assertThat(table(job, "top.3.left").getDistKeyList()).isEmpty();
    assertThat(table(job, "top.3.right").getDistKeyList()).isEmpty();
  }

  @Test
  void aggregateAlreadyHashedByASubsetOfItsKeysNeedsNoExchange() {
    PlanBuilder b = new PlanBuilder("nested");
    b.source("nexmark", "bid", OPTS).groupBy("auction").agg(Agg.count("n"))
        .groupBy("auction", "n").agg(Agg.count("c")).materialize("nested");
    JobDefinition job = compile(b);
    checkInvariants(job);
    assertThat(job.getEdgesCount()).isEqualTo(1);
    assertThat(fragmentsWith(job, PlanNode.KindCase.HASH_AGG)).hasSize(1);
    assertThat(table(job, "nested.2.agg").getDistKeyList()).containsExactly(0);
  }

  @Test
  void tableIdsAreContiguousFromTheBase() {
    JobDefinition job = compile("q4");
    List<Integer> ids = job.getTablesList().stream().map(TableCatalog::getTableId).toList();
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      expected.add(BASE + i);
    }
    assertThat(ids).isEqualTo(expected);
  }

  // ---- invariants

  /**
   * Structural invariants of any compiled job: pk ⊇ dist key for every table; tables belong to the
   * fragment that lists them; each merge leaf has exactly one edge from its upstream fragment; HASH
   * edges name columns of the upstream root; SIMPLE edges end in singletons; NO_SHUFFLE edges link
   * fragments of the same kind; node ids are unique.
   */
  static void checkInvariants(JobDefinition job) {
    Set<Integer> listed = new HashSet<>();
    for (Fragment f : job.getFragmentsList()) {
      assertThat(f.getFragmentId()).isEqualTo(job.getFragmentsList().indexOf(f));
      listed.addAll(f.getStateTableIdsList());
      for (int t : f.getStateTableIdsList()) {
        assertThat(job.getTablesList().stream().filter(x -> x.getTableId() == t).findFirst().orElseThrow().getFragmentId())
            .isEqualTo(f.getFragmentId());
      }
      List<Integer> mergeUps = f.getNodesList().stream().filter(PlanNode::hasMerge).map(n -> n.getMerge().getUpstreamFragmentId()).toList();
      List<Integer> edgeUps = edgesInto(job, f).stream().map(FragmentEdge::getUpstreamFragmentId).toList();
      assertThat(edgeUps).as("fragment %d: one edge per merge leaf", f.getFragmentId()).containsExactlyInAnyOrderElementsOf(mergeUps);
      assertThat(f.getHasSource()).isEqualTo(f.getNodesList().stream().anyMatch(PlanNode::hasSource));
    }
    assertThat(listed).isEqualTo(job.getTablesList().stream().map(TableCatalog::getTableId).collect(Collectors.toSet()));
    for (TableCatalog t : job.getTablesList()) {
      assertThat(t.getPkList()).as("table %s: pk ⊇ dist key", t.getName()).containsAll(t.getDistKeyList());
      assertThat(t.getPkList()).allMatch(p -> p >= 0 && p < t.getColumnsCount());
      boolean singleton = job.getFragments(t.getFragmentId()).getSingleton();
      if (singleton) {
        assertThat(t.getDistKeyList()).as("table %s of a singleton fragment", t.getName()).isEmpty();
      }
    }
    for (FragmentEdge e : job.getEdgesList()) {
      Fragment up = root(job, e);
      Fragment down = job.getFragments(e.getDownstreamFragmentId());
      switch (e.getType()) {
        case HASH -> {
          assertThat(e.getDistKeyList()).isNotEmpty();
          assertThat(e.getDistKeyList()).allMatch(c -> c >= 0 && c < rootNode(up).getSchemaCount());
          assertThat(down.getSingleton()).isFalse();
        }
        case SIMPLE -> assertThat(down.getSingleton()).isTrue();
        case NO_SHUFFLE -> assertThat(up.getSingleton()).isEqualTo(down.getSingleton());
        default -> { }
      }
    }
    Set<Integer> ids = new HashSet<>();
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        assertThat(ids.add(n.getId())).as("node id %d is unique", n.getId()).isTrue();
      }
    }
  }

  private static int columnIndex(PlanNode n, String name) {
    for (int i = 0; i < n.getSchemaCount(); i++) {
      if (n.getSchema(i).getName().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no column " + name + " in node " + n.getId());
  }
}

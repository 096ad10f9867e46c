package dev.tide.stream.plan;

import static dev.tide.stream.expr.Ex.col;
import static dev.tide.stream.expr.Ex.eq;
import static dev.tide.stream.expr.Ex.gt;
import static dev.tide.stream.expr.Ex.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.types.DataType;
import dev.tide.proto.plan.Plan;
import dev.tide.stream.expr.Ex;
import dev.tide.stream.plan.PlanBuilder.Named;
import dev.tide.stream.plan.PlanBuilder.Stream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * A bad plan fails while it is built, before anything runs, with a {@link PlanException} that names
 * the offending column, type, key, option or name and the rule it breaks.
 */
class PlanBuilderErrorsTest {
  private static final Map<String, String> OPTS = Map.of("events", "100");
  private static final String BID_COLUMNS = "[auction, bidder, price, channel, url, date_time, extra, _row_id]";

  private final PlanBuilder b = new PlanBuilder("job");

  private Stream bids() {
    return b.source("nexmark", "bid", OPTS);
  }

  private static void refused(ThrowingCallable call, String... fragments) {
    var a = assertThatThrownBy(call).isInstanceOf(PlanException.class);
    for (String f : fragments) {
      a.hasMessageContaining(f);
    }
  }

  // ---- unknown columns

  @Test
  void unknownColumnInFilter() {
    refused(() -> bids().filter(gt(col("prise"), lit(1L))),
        "unknown column 'prise'", "in filter (node 1 of plan 'job')", "available columns: " + BID_COLUMNS);
  }

  @Test
  void unknownColumnInProject() {
    refused(() -> bids().project("auction", "nope"), "unknown column 'nope'", "in project", BID_COLUMNS);
    refused(() -> bids().project(List.of(new Named(Ex.add(col("price"), col("tax")), "total"))), "unknown column 'tax'", "in project");
  }

  @Test
  void unknownColumnInGroupBy() {
    refused(() -> bids().groupBy("auction", "sellr"), "unknown column 'sellr'", "in group by", BID_COLUMNS);
  }

  @Test
  void unknownColumnInJoinKeyOfEitherSide() {
    Stream persons = b.source("nexmark", "person", OPTS);
    refused(() -> bids().join(persons, List.of("bidderr"), List.of("id")), "unknown column 'bidderr'", "in join", BID_COLUMNS);
    refused(() -> bids().join(persons, List.of("bidder"), List.of("idd")), "unknown column 'idd'", "in join",
        "[id, name, email_address, credit_card, city, state, date_time, extra]");
  }

  @Test
  void joinPartitionKeyMustBeAnUnrepeatedLeftKey() {
    Stream auctions = b.source("nexmark", "auction", OPTS);
    refused(() -> bids().join(auctions, List.of("auction", "price"), List.of("id", "reserve"), List.of("bidder")),
        "bad partition key", "'bidder' is not one of the left keys [auction, price]");
    refused(() -> bids().join(auctions, List.of("auction", "price"), List.of("id", "reserve"), List.of("auction", "auction")),
        "bad partition key", "'auction' is named twice");
  }

  @Test
  void unknownColumnAsAggregateArgument() {
    refused(() -> bids().groupBy("auction").agg(Agg.max("prize", "m")), "unknown column 'prize'", "in aggregate max", BID_COLUMNS);
  }

  @Test
  void maxRowsNeedsAKnownColumnThatIsNotAGroupKey() {
    refused(() -> bids().groupBy("auction").maxRows("cost"), "unknown column 'cost'", "maxRows");
    Stream maxes = bids().groupBy("auction").agg(Agg.max("price", "price"));
    refused(() -> maxes.groupBy("auction").minRows("auction"), "minRows", "column 'auction' is a group key");
  }

  @Test
  void unknownWindowTimeColumn() {
    refused(() -> bids().tumble("ts", Duration.ofSeconds(10)), "unknown column 'ts'", "in tumble", BID_COLUMNS);
    refused(() -> bids().hop("ts", Duration.ofSeconds(10), Duration.ofSeconds(2)), "unknown column 'ts'", "in hop");
  }

  @Test
  void unknownPrimaryKeyColumn() {
    refused(() -> bids().materialize("v", List.of("auction", "row_id")), "unknown column 'row_id'", "in materialize v");
  }

  // ---- type mismatches

  @Test
  void filterConditionMustBeBoolean() {
    refused(() -> bids().filter(col("price")), "type mismatch in filter", "condition is bigint, must be boolean");
    refused(() -> bids().filter(Ex.add(col("price"), lit(1))), "condition is bigint, must be boolean");
  }

  @Test
  void varcharDoesNotCompareWithBigint() {
    refused(() -> bids().filter(eq(col("channel"), lit(1L))), "type mismatch in filter", "eq(varchar, bigint) needs comparable operands");
    refused(() -> bids().filter(Ex.in(col("price"), lit("1"))), "in(bigint, varchar) needs comparable operands");
    refused(() -> bids().filter(eq(col("date_time"), col("price"))), "eq(timestamp, bigint)");
  }

  @Test
  void sumAndAvgNeedNumericColumns() {
    refused(() -> bids().groupBy("auction").agg(Agg.sum("channel", "s")), "type mismatch", "SUM(channel) needs a numeric column, got varchar");
    refused(() -> bids().groupBy("auction").agg(Agg.avg("date_time", "a")), "AVG(date_time) needs a numeric column, got timestamp");
  }

  @Test
  void joinKeysMustHaveTheSameType() {
    Stream auctions = b.source("nexmark", "auction", OPTS);
    refused(() -> bids().join(auctions, List.of("channel"), List.of("id")), "type mismatch in join",
        "key channel is varchar but id is bigint");
    Stream doubled = bids().project(List.of(new Named(Ex.cast(col("auction"), DataType.DOUBLE), "a"), new Named(col("_row_id"), "_row_id")));
    refused(() -> doubled.join(auctions, List.of("a"), List.of("id")), "key a is double but id is bigint");
  }

  @Test
  void windowNeedsATimestampColumnAndASizeThatIsAMultipleOfTheSlide() {
    refused(() -> bids().tumble("price", Duration.ofSeconds(10)), "type mismatch in tumble", "time column 'price' is bigint, must be timestamp");
    refused(() -> bids().hop("date_time", Duration.ofSeconds(10), Duration.ofSeconds(3)),
        "window size 10000 ms must be a positive multiple of the slide 3000 ms");
    refused(() -> bids().tumble("date_time", Duration.ZERO), "window size 0 ms");
  }

  @Test
  void expressionErrorsNameTheFunction() {
    refused(() -> bids().filter(Ex.fn("soundex", col("channel"))), "unknown function 'soundex'", "known: add sub");
    refused(() -> bids().filter(Ex.fn("eq", col("price"))), "eq takes 2 argument(s), got 1");
    refused(() -> bids().filter(eq(Ex.mod(col("price"), lit(2.0)), lit(0L))), "mod(bigint, double) needs integer operands");
    refused(() -> bids().filter(Ex.and(col("price"), lit(true))), "and needs boolean operands, got bigint");
    refused(() -> bids().filter(Ex.not(col("channel"))), "not needs a boolean operand, got varchar");
    refused(() -> bids().filter(Ex.in(col("price"), col("bidder"))), "in accepts only literal candidates");
    refused(() -> bids().project(List.of(new Named(Ex.cast(col("channel"), DataType.BIGINT), "c"))), "cannot cast varchar to bigint");
  }

  @Test
  void literalsMustHoldValuesOfTheirType() {
    refused(() -> bids().filter(eq(col("price"), new Ex.Lit("7", DataType.BIGINT))), "literal 7 (String) is not a valid bigint");
    refused(() -> bids().filter(eq(col("price"), new Ex.Lit(1.5, DataType.INT))), "literal 1.5 (Double) is not a valid int");
    refused(() -> bids().filter(eq(col("price"), new Ex.Lit(1L << 40, DataType.INT))), "is not a valid int");
    refused(() -> bids().filter(new Ex.Lit(1, DataType.BOOLEAN)), "is not a valid boolean");
  }

  // ---- keys

  @Test
  void joinNeedsAtLeastOneKeyPairOfEqualLength() {
    Stream persons = b.source("nexmark", "person", OPTS);
    refused(() -> bids().join(persons, List.of(), List.of()), "missing key in join", "needs at least one key pair");
    refused(() -> bids().join(persons, List.of("bidder"), List.of("id", "name")), "1 left keys but 2 right keys");
  }

  @Test
  void selfJoinOfOneNodeIsRefused() {
    Stream s = bids();
    refused(() -> s.join(s, List.of("auction"), List.of("auction")), "both sides are node 0", "self-join needs distinct inputs");
    // A hand-built plan with a node reading one input twice is refused by the compiler.
    s.materialize("v");
    Plan p = b.build();
    Plan.Builder twice = p.toBuilder();
    twice.setNodes(1, p.getNodes(1).toBuilder().clearInputs().addInputs(0).addInputs(0));
    refused(() -> JobCompiler.compile(twice.build(), 1, 256, 1000), "node 1 reads node 0 twice");
  }

  @Test
  void primaryKeyMustCoverTheStreamKey() {
    refused(() -> bids().materialize("v", List.of("auction", "bidder")), "missing key in materialize 'v'",
        "primary key [auction, bidder] does not cover the stream key column '_row_id'");
    // A hidden key column (kept by a projection that dropped it) must be covered too.
    refused(() -> bids().project("auction", "price").materialize("v", List.of("auction")), "stream key column '_row_id'");
  }

  @Test
  void duplicateOutputNamesAreRefused() {
    refused(() -> bids().groupBy("auction").agg(Agg.count("auction")), "duplicate output column 'auction'", "aggregate");
    refused(() -> bids().project(List.of(new Named(col("price"), "p"), new Named(col("bidder"), "p"))), "duplicate output column 'p'", "project");
  }

  // ---- sources

  @Test
  void unknownConnectorAndTable() {
    refused(() -> b.source("kafka", "bid", OPTS), "unknown source connector 'kafka'", "known connectors: [nexmark]");
    refused(() -> b.source("nexmark", "bids", OPTS), "unknown nexmark table 'bids'", "known tables: [person, auction, bid]");
  }

  @Test
  void invalidSourceOptionsNameTheOptionValueAndRule() {
    refused(() -> b.source("nexmark", "bid", Map.of("splits", "0")), "nexmark source 'bid'", "invalid value '0' for option 'splits'",
        "must be between 1 and 4096");
    refused(() -> b.source("nexmark", "bid", Map.of("splits", "eight")), "invalid value 'eight' for option 'splits'");
    refused(() -> b.source("nexmark", "bid", Map.of("rate", "-1")), "invalid value '-1' for option 'rate'", "0 (unlimited) or a positive rate");
    refused(() -> b.source("nexmark", "bid", Map.of("events", "-2")), "option 'events'", "-1 (unbounded) or a non-negative count");
    refused(() -> b.source("nexmark", "bid", Map.of("event-time-rate", "0")), "option 'event-time-rate'", "a positive rate");
    refused(() -> b.source("nexmark", "bid", Map.of("rate", "1000", "rate-steps", "30s:4000,10s:2000")), "option 'rate-steps'",
        "steps OFFSET:RATE with rising offsets and positive rates");
    refused(() -> b.source("nexmark", "bid", Map.of("ratee", "5")), "option 'ratee'", "unknown option",
        "[alignment-drift-ms, event-time-rate, events, rate, rate-steps, seed, splits, watermark-delay-ms]");
  }

  // ---- names and sinks

  @Test
  void jobAndViewNamesMustBeIdentifiers() {
    for (String bad : new String[] {"my-job", "", "1job", "job name", "jöb"}) {
      refused(() -> new PlanBuilder(bad), "job name '" + bad + "' must be an identifier");
    }
    refused(() -> new PlanBuilder(null), "job name 'null'");
    for (String bad : new String[] {"v-1", "", "9v", "a.b"}) {
      refused(() -> bids().materialize(bad), "view name '" + bad + "' must be an identifier");
    }
  }

  @Test
  void planWithoutAViewOrSinkIsRefused() {
    bids().filter(gt(col("price"), lit(1L)));
    refused(b::build, "plan 'job' has no materialized view or sink", "add materialize(...), digest(...) or sink(...)");
  }

  @Test
  void emptySinkPathIsRefused() {
    refused(() -> bids().sink(" "), "sink path must not be empty");
  }

  @Test
  void twoViewsWithTheSameNameAreRefusedWhenCompiled() {
    Stream s = bids();
    s.materialize("v");
    s.filter(gt(col("price"), lit(1L))).materialize("v");
    Plan p = b.build();
    refused(() -> JobCompiler.compile(p, 1, 256, 1000), "job 'job' has two views or digests named 'v'");
  }

  @Test
  void aDigestNamedLikeAViewIsRefusedWhenCompiled() {
    Stream s = bids();
    s.materialize("v");
    s.digest("v");
    Plan p = b.build();
    refused(() -> JobCompiler.compile(p, 1, 256, 1000), "job 'job' has two views or digests named 'v'");
  }

  @Test
  void aDigestNameMustBeAnIdentifier() {
    refused(() -> bids().digest("no such"), "digest name 'no such' must be an identifier");
  }

  @Test
  void vnodeCountOutsideTheAllowedRangeIsRefused() {
    bids().materialize("v");
    Plan p = b.build();
    refused(() -> JobCompiler.compile(p, 1, 0, 1000), "vnode count 0 of job 'job' must be between 1 and 32768");
    refused(() -> JobCompiler.compile(p, 1, 32769, 1000), "vnode count 32769");
  }

  // ---- nothing partial

  @Test
  void aRefusedCallLeavesThePlanUnchanged() {
    PlanBuilder reference = new PlanBuilder("job");
    buildJoinWithHiddenMiddleColumns(reference).materialize("v");

    Stream joined = buildJoinWithHiddenMiddleColumns(b);
    // Each of these is refused after the builder has resolved some of its input.
    refused(() -> joined.materialize("v", List.of("price")), "does not cover");
    refused(() -> joined.filter(Ex.and(gt(col("price"), lit(1L)), col("nope"))), "unknown column 'nope'");
    refused(() -> joined.groupBy("price").agg(Agg.count("n"), Agg.sum("name", "s")), "SUM(name)");
    refused(() -> joined.project("price", "zzz"), "unknown column 'zzz'");
    refused(() -> joined.groupBy("name").maxRows("nope"), "unknown column 'nope'");
    joined.materialize("v");
    assertThat(b.build()).isEqualTo(reference.build());
  }

  /** bid(price, hidden _row_id) join person: the left side's hidden key sits between visible columns. */
  private static Stream buildJoinWithHiddenMiddleColumns(PlanBuilder pb) {
    Stream left = pb.source("nexmark", "bid", OPTS).project("bidder", "price");
    Stream right = pb.source("nexmark", "person", OPTS).project("id", "name");
    return left.join(right, List.of("bidder"), List.of("id"));
  }

  // ---- emit on window close

  @Test
  void windowCloseNeedsAGroupKeyWithAWatermarkOverAnAppendOnlyInput() {
    Stream windowed = bids().tumble("date_time", java.time.Duration.ofSeconds(10));
    refused(() -> windowed.groupBy("auction").emitOnWindowClose("window_start"),
        "emitOnWindowClose", "column 'window_start' is not a group key");
    refused(() -> windowed.groupBy("auction", "window_start").emitOnWindowClose("auction"),
        "column 'auction' has no watermark", "window_start or window_end over a source's date_time");
    refused(() -> windowed.groupBy("auction", "window_start").agg(Agg.count("n")).groupBy("window_start")
        .emitOnWindowClose("window_start"), "column 'window_start' has no watermark");
    Stream leaders = windowed.groupBy("window_start").maxRows("price"); // retracts, and keeps window_start's watermark
    refused(() -> leaders.groupBy("window_start").emitOnWindowClose("window_start"), "the input can delete or update rows");
    refused(() -> windowed.groupBy("auction", "window_start").emitOnWindowClose("window_begin"), "unknown column 'window_begin'");
  }
}

package dev.tide.stream.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.time.ManualClock;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.SourceAlignment;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.operator.Harness;
import dev.tide.stream.plan.PlanBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Sources sharing a {@link SourceAlignment} stay within the drift of each other in event time: a
 * sparse table's source that runs alone stops at the dense one's position plus the drift and goes on
 * as the dense one moves; a source with nothing left, or not yet started, holds nobody back; the
 * held rows are not lost.
 */
class SourceAlignmentTest {
  private static final long EVENTS = 200_000;
  /** Event-time rate 10,000 ids per second: a drift of 1,000 ms is 10,000 event ids. */
  private static final long DRIFT_MS = 1_000;

  private final SourceAlignment alignment = new SourceAlignment();

  private NexmarkSourceOp source(String table, long events, long drift) {
    Map<String, String> options = Map.of("events", Long.toString(events), "splits", "1", "alignment-drift-ms", Long.toString(drift));
    PlanBuilder b = new PlanBuilder("p");
    b.source("nexmark", table, options).materialize("p");
    Harness h = new Harness(b.build());
    PlanNode node = h.node(PlanNode.KindCase.SOURCE);
    SourceNode sourceNode = node.getSource();
    ActorContext all = h.context(node);
    ActorContext ctx = new ActorContext(1, all.jobId(), all.vnodeCount(), all.vnodes(), List.of(0), new TreeMap<>(all.tables()),
        h.store, new ManualClock(0), false, 0, alignment);
    NexmarkSourceOp op = new NexmarkSourceOp(sourceNode, ctx);
    op.open();
    op.onBarrier(h.barrier(), c -> { });
    return op;
  }

  @Test
  void aSparseSourceWaitsForTheDenseOneAndMovesOnWithIt() {
    NexmarkConfig config = NexmarkConfig.defaults();
    NexmarkSourceOp bids = source("bid", EVENTS, DRIFT_MS);
    NexmarkSourceOp auctions = source("auction", EVENTS, DRIFT_MS);
    assertThat(alignment.size()).isEqualTo(2);

    long auctionRows = countUntilHeld(auctions);
    assertThat(auctionRows).as("bids not read yet: they hold nobody back").isEqualTo(EVENTS * 3 / 50);

    bids = source("bid", EVENTS, DRIFT_MS);
    auctions = source("auction", EVENTS, DRIFT_MS);
    long bidRows = bids.next(0).size();
    auctionRows = countUntilHeld(auctions);
    long nextBid = NexmarkGenerator.eventId(NexmarkTable.BID, bidRows);
    long budget = config.eventIdsUpTo(config.eventTimeMillis(nextBid) + DRIFT_MS);
    assertThat(auctions.nanosUntilReady(0)).as("held, polling").isEqualTo(1_000_000L);
    assertThat(auctionRows).as("auctions of the first %d event ids only", budget)
        .isBetween(budget * 3 / 50 - 3, budget * 3 / 50 + 3);

    // The bids catch up past the held auctions, which then go on, and bids are held in turn.
    long caughtUp = countUntilHeld(bids);
    assertThat(caughtUp).isGreaterThan(0);
    assertThat(bids.nanosUntilReady(0)).as("bids now ahead, held").isEqualTo(1_000_000L);
    long movedOn = countUntilHeld(auctions);
    assertThat(movedOn).isGreaterThan(0);
    bidRows += caughtUp;
    auctionRows += movedOn;

    // Alternating, both reach the end: every row emitted once.
    for (int round = 0; round < 10_000 && !(bids.ended() && auctions.ended()); round++) {
      bidRows += countUntilHeld(bids);
      auctionRows += countUntilHeld(auctions);
    }
    assertThat(bids.ended() && auctions.ended()).isTrue();
    assertThat(auctionRows + countUntilHeld(auctions)).isEqualTo(EVENTS * 3 / 50);
    assertThat(bidRows).isEqualTo(EVENTS * 46 / 50);
  }

  @Test
  void anExhaustedSourceHoldsNobodyBack() {
    NexmarkSourceOp bids = source("bid", 1_000, DRIFT_MS);
    NexmarkSourceOp auctions = source("auction", EVENTS, DRIFT_MS);
    countUntilHeld(bids);
    assertThat(bids.ended()).isTrue();
    assertThat(countUntilHeld(auctions)).isEqualTo(EVENTS * 3 / 50);
  }

  @Test
  void aClosedOrUnalignedSourceHoldsNobodyBack() {
    NexmarkSourceOp bids = source("bid", EVENTS, DRIFT_MS);
    NexmarkSourceOp unaligned = source("auction", EVENTS, 0);
    assertThat(alignment.size()).as("drift 0: not a member").isEqualTo(1);
    assertThat(countUntilHeld(unaligned)).isEqualTo(EVENTS * 3 / 50);

    bids.next(0);
    NexmarkSourceOp auctions = source("auction", EVENTS, DRIFT_MS);
    assertThat(countUntilHeld(auctions)).isLessThan(EVENTS * 3 / 50);
    bids.close();
    assertThat(alignment.size()).isEqualTo(1);
    assertThat(auctions.nanosUntilReady(0)).isZero();
    countUntilHeld(auctions);
    assertThat(auctions.ended()).isTrue();
  }

  @Test
  void eventIdsUpToCountsTheIdsAtOrBeforeATime() {
    NexmarkConfig config = NexmarkConfig.defaults();
    long base = config.eventTimeMillis(0);
    assertThat(config.eventIdsUpTo(base - 1)).isZero();
    for (long t : new long[] {base, base + 1, base + 999, base + 1_000, base + 123_457}) {
      long n = config.eventIdsUpTo(t);
      assertThat(config.eventTimeMillis(n - 1)).isLessThanOrEqualTo(t);
      assertThat(config.eventTimeMillis(n)).isGreaterThan(t);
    }
    assertThat(config.eventIdsUpTo(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    assertThat(config.eventIdsUpTo(Long.MAX_VALUE / 2)).isEqualTo(Long.MAX_VALUE);
  }

  private static long countUntilHeld(NexmarkSourceOp op) {
    long rows = 0;
    for (StreamChunk c = op.next(0); c != null; c = op.next(0)) {
      rows += c.size();
    }
    return rows;
  }
}

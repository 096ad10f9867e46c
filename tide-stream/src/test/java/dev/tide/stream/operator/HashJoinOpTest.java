package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.HashJoinNode;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.operator.Chunks.Row;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Stream;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The join's answers do not depend on what it caches: a side with one row per key (append-only or
 * retracting) joined with a side of many rows per key, rows arriving on either side first, and a
 * fresh operator over the same state (cold caches) continuing the same join.
 */
class HashJoinOpTest {
  private static final Map<String, String> OPTS = Map.of("events", "10");
  private static final DataType[] THREE_LONGS = {DataType.BIGINT, DataType.BIGINT, DataType.BIGINT};
  private static final DataType[] TWO_LONGS = {DataType.BIGINT, DataType.BIGINT};

  private static List<String> text(List<StreamChunk> out) {
    List<String> rows = out.stream().flatMap(c -> visible(c).stream()).map(HashJoinOpTest::text).toList();
    out.clear();
    return rows;
  }

  private static String text(Row r) {
    return r.op() + " " + Arrays.toString(r.values());
  }

  private static List<String> rows(Row... rows) {
    return Arrays.stream(rows).map(HashJoinOpTest::text).toList();
  }

  private static HashJoinOp open(Harness h) {
    PlanNode n = h.node(PlanNode.KindCase.HASH_JOIN);
    HashJoinOp join = new HashJoinOp(n.getHashJoin(), h.inputTypes(n, 0), h.inputTypes(n, 1), h.context(n));
    join.open();
    return join;
  }

  private static List<List<Object>> stored(Harness h, String suffix) {
    TableCatalog t = h.job.getTablesList().stream().filter(c -> c.getName().endsWith(suffix)).findFirst().orElseThrow();
    return StateTable.scanAll(h.store, t).stream().map(Arrays::asList).toList();
  }

  /**
   * Bids (auction, price, _row_id) join auctions (id, seller): the auction side has one row per key
   * and only inserts, so only the bids that come before their auction are stored.
   */
  @Test
  void appendOnlyOneRowPerKeySideMatchesBidsArrivingBeforeAndAfterIt() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "seller");
    bids.join(auctions, List.of("auction"), List.of("id")).materialize("j");
    Harness h = new Harness(b.build());
    HashJoinNode node = h.node(PlanNode.KindCase.HASH_JOIN).getHashJoin();
    assertThat(node.getLeftAppendOnly()).isTrue();
    assertThat(node.getRightAppendOnly()).isTrue();

    HashJoinOp join = open(h);
    List<StreamChunk> out = new ArrayList<>();
    join.process(0, chunk(THREE_LONGS, ins(1L, 10L, 100L), ins(2L, 20L, 101L)), out::add);
    assertThat(text(out)).isEmpty();
    join.process(1, chunk(TWO_LONGS, ins(1L, 7L), ins(3L, 8L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 10L, 100L, 1L, 7L)));
    join.process(0, chunk(THREE_LONGS, ins(1L, 11L, 102L), ins(3L, 30L, 103L), ins(4L, 40L, 104L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 11L, 102L, 1L, 7L), ins(3L, 30L, 103L, 3L, 8L)));
    join.onBarrier(h.barrier(), out::add);
    assertThat(stored(h, ".left")).as("bids 102 and 103 found their auction: no later auction can match them")
        .containsExactlyInAnyOrder(List.of(1L, 10L, 100L), List.of(2L, 20L, 101L), List.of(4L, 40L, 104L));
    assertThat(stored(h, ".right")).containsExactlyInAnyOrder(List.of(1L, 7L), List.of(3L, 8L));

    HashJoinOp restarted = open(h);
    restarted.process(1, chunk(TWO_LONGS, ins(2L, 9L), ins(4L, 6L)), out::add);
    assertThat(text(out)).containsExactlyInAnyOrderElementsOf(rows(ins(2L, 20L, 101L, 2L, 9L), ins(4L, 40L, 104L, 4L, 6L)));
    restarted.process(0, chunk(THREE_LONGS, ins(1L, 12L, 105L), ins(5L, 50L, 106L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 12L, 105L, 1L, 7L)));
  }

  /** Bids (auction, price, _row_id) join per-auction maxes (auction, hi) on both columns: the highest bids as a join. */
  @Test
  void retractingOneRowPerKeySideMovesItsMatchesWhenItChanges() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id");
    Stream maxes = bids.groupBy("auction").agg(Agg.max("price", "hi"));
    bids.join(maxes, List.of("auction", "price"), List.of("auction", "hi")).materialize("j");
    Harness h = new Harness(b.build());
    HashJoinNode node = h.node(PlanNode.KindCase.HASH_JOIN).getHashJoin();
    assertThat(node.getLeftAppendOnly()).isTrue();
    assertThat(node.getRightAppendOnly()).isFalse();

    HashJoinOp join = open(h);
    List<StreamChunk> out = new ArrayList<>();
    join.process(0, chunk(THREE_LONGS, ins(1L, 5L, 100L), ins(1L, 9L, 101L)), out::add);
    join.process(1, chunk(TWO_LONGS, ins(1L, 5L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 5L, 100L, 1L, 5L)));
    join.process(0, chunk(THREE_LONGS, ins(1L, 5L, 102L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 5L, 102L, 1L, 5L)));
    // The max moves from 5 to 9: both matches of 5 are retracted, the bid of 9 matches.
    join.process(1, chunk(TWO_LONGS, ud(1L, 5L), ui(1L, 9L)), out::add);
    assertThat(text(out)).containsExactlyInAnyOrderElementsOf(rows(
        Chunks.del(1L, 5L, 100L, 1L, 5L), Chunks.del(1L, 5L, 102L, 1L, 5L), ins(1L, 9L, 101L, 1L, 9L)));
    join.onBarrier(h.barrier(), out::add);

    HashJoinOp restarted = open(h);
    restarted.process(0, chunk(THREE_LONGS, ins(1L, 9L, 103L), ins(1L, 5L, 104L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 9L, 103L, 1L, 9L)));
    restarted.process(1, chunk(TWO_LONGS, ud(1L, 9L), ui(1L, 12L)), out::add);
    assertThat(text(out)).containsExactlyInAnyOrderElementsOf(rows(
        Chunks.del(1L, 9L, 101L, 1L, 9L), Chunks.del(1L, 9L, 103L, 1L, 9L)));
  }

  /**
   * Auctions (id, seller) LEFT JOIN bids (auction, price, _row_id): an auction without bids is
   * padded with nulls, its padded row is deleted when the first bid arrives and inserted again when
   * the last one leaves; a fresh operator over the same state knows which auctions have bids.
   */
  @Test
  void leftJoinPadsUnmatchedRowsAndRetractsThemWhenAMatchArrives() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "seller");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "price", "_row_id").groupBy("auction", "_row_id")
        .agg(Agg.max("price", "price"));
    auctions.join(bids, List.of("id"), List.of("auction"), List.of(), dev.tide.proto.plan.JoinType.LEFT_OUTER).materialize("j");
    Harness h = new Harness(b.build());
    assertThat(h.node(PlanNode.KindCase.HASH_JOIN).getAppendOnly()).isFalse();
    HashJoinOp join = open(h);
    List<StreamChunk> out = new ArrayList<>();
    join.process(0, chunk(TWO_LONGS, ins(1L, 7L), ins(2L, 8L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(1L, 7L, null, null, null), ins(2L, 8L, null, null, null)));
    join.process(1, chunk(THREE_LONGS, ins(1L, 100L, 50L), ins(1L, 101L, 60L)), out::add);
    assertThat(text(out)).isEqualTo(rows(Chunks.del(1L, 7L, null, null, null), ins(1L, 7L, 1L, 100L, 50L), ins(1L, 7L, 1L, 101L, 60L)));
    join.onBarrier(h.barrier(), c -> { });
    HashJoinOp fresh = open(h);
    fresh.process(1, chunk(THREE_LONGS, Chunks.del(1L, 100L, 50L)), out::add);
    assertThat(text(out)).isEqualTo(rows(Chunks.del(1L, 7L, 1L, 100L, 50L)));
    fresh.process(1, chunk(THREE_LONGS, Chunks.del(1L, 101L, 60L)), out::add);
    assertThat(text(out)).isEqualTo(rows(Chunks.del(1L, 7L, 1L, 101L, 60L), ins(1L, 7L, null, null, null)));
    // A left row deleted while unmatched retracts its padded row.
    fresh.process(0, chunk(TWO_LONGS, Chunks.del(2L, 8L)), out::add);
    assertThat(text(out)).isEqualTo(rows(Chunks.del(2L, 8L, null, null, null)));
  }

  /**
   * Auctions (id, date_time, expires) join bids (auction, date_time, _row_id) where the bid is within
   * the auction's life: a bid below the auctions' watermark and an auction expired below the bids'
   * watermark can match nothing later, so they leave state; a fresh operator finds them in state.
   */
  @Test
  void intervalBoundsReleaseRowsAsTheOtherSidesWatermarkPassesThem() throws InterruptedException {
    PlanBuilder b = new PlanBuilder("j");
    Stream auctions = b.source("nexmark", "auction", OPTS).project("id", "date_time", "expires");
    Stream bids = b.source("nexmark", "bid", OPTS).project("auction", "date_time", "_row_id");
    auctions.join(bids, List.of("id"), List.of("auction"), List.of(), dev.tide.proto.plan.JoinType.INNER,
            List.of(new PlanBuilder.Bound(false, "date_time", "date_time"), new PlanBuilder.Bound(true, "expires", "date_time")))
        .materialize("j");
    Harness h = new Harness(b.build());
    assertThat(h.node(PlanNode.KindCase.HASH_JOIN).getHashJoin().getCleanupsCount()).isEqualTo(2);
    DataType[] three = {DataType.BIGINT, DataType.TIMESTAMP, DataType.TIMESTAMP};
    DataType[] bid = {DataType.BIGINT, DataType.TIMESTAMP, DataType.BIGINT};
    HashJoinOp join = open(h);
    List<StreamChunk> out = new ArrayList<>();
    join.process(1, chunk(bid, ins(1L, 50L, 100L), ins(2L, 80L, 101L)), out::add); // bids before their auctions: stored
    join.process(0, chunk(three, ins(3L, 60L, 200L), ins(4L, 70L, 90L)), out::add); // auctions without bids yet: stored
    join.onBarrier(h.barrier(), c -> { });
    assertThat(stored(h, ".left")).hasSize(2);
    assertThat(stored(h, ".right")).hasSize(2);
    HashJoinOp fresh = open(h);
    // Auctions' watermark 60: no later auction starts before 60, so the bid at 50 is released, not the one at 80.
    fresh.onWatermark(0, new dev.tide.stream.actor.Watermark(1, 60L), c -> { });
    fresh.onBarrier(h.barrier(), c -> { });
    assertThat(stored(h, ".right")).extracting(r -> r.get(0)).containsExactly(2L);
    // Bids' watermark 95: auction 4 expired at 90, auction 3 (expires 200) stays.
    fresh.onWatermark(1, new dev.tide.stream.actor.Watermark(1, 95L), c -> { });
    fresh.onBarrier(h.barrier(), c -> { });
    assertThat(stored(h, ".left")).extracting(r -> r.get(0)).containsExactly(3L);
    fresh.process(1, chunk(bid, ins(3L, 150L, 102L)), out::add);
    assertThat(text(out)).isEqualTo(rows(ins(3L, 60L, 200L, 3L, 150L, 102L)));
  }
}

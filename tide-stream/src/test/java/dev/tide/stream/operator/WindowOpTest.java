package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.Op;
import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.WindowKind;
import dev.tide.proto.plan.WindowNode;
import dev.tide.stream.operator.Chunks.Row;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Window assignment: tumbling windows append [start, end); hopping windows emit one row per window. */
class WindowOpTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.TIMESTAMP};

  private static WindowOp window(WindowKind kind, long size, long slide) {
    return new WindowOp(WindowNode.newBuilder().setKind(kind).setTimeColumn(1).setSizeMs(size).setSlideMs(slide).build(), TYPES.length);
  }

  private static List<Row> run(WindowOp w, StreamChunk in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    w.process(0, in, out::add);
    return out.stream().flatMap(c -> visible(c).stream()).toList();
  }

  @Property
  void tumbleAppendsTheWindowContainingTheTime(@ForAll @LongRange(min = -1_000_000_000L, max = 1_000_000_000L) long t,
      @ForAll @IntRange(min = 1, max = 100_000) int size) throws InterruptedException {
    Row r = run(window(WindowKind.TUMBLE, size, size), chunk(TYPES, ins(1L, t))).get(0);
    long start = (Long) r.values()[2];
    long end = (Long) r.values()[3];
    assertThat(end - start).isEqualTo(size);
    assertThat(start).isLessThanOrEqualTo(t);
    assertThat(t).isLessThan(end);
    assertThat(Math.floorMod(start, size)).isZero();
  }

  @Property
  void hopEmitsEveryWindowContainingTheTime(@ForAll @LongRange(min = -1_000_000L, max = 1_000_000L) long t,
      @ForAll @IntRange(min = 1, max = 1000) int slide, @ForAll @IntRange(min = 1, max = 6) int per) throws InterruptedException {
    long size = (long) slide * per;
    List<Row> rows = run(window(WindowKind.HOP, size, slide), chunk(TYPES, ins(1L, t)));
    assertThat(rows).hasSize(per);
    for (Row r : rows) {
      long start = (Long) r.values()[2];
      assertThat(start).isLessThanOrEqualTo(t);
      assertThat(t).isLessThan(start + size);
      assertThat(Math.floorMod(start, slide)).isZero();
      assertThat((Long) r.values()[3]).isEqualTo(start + size);
    }
    assertThat(rows).extracting(r -> r.values()[2]).doesNotHaveDuplicates();
  }

  @Example
  void hopTurnsUpdatePairsIntoDeletesAndInsertsAndDropsNullTimes() throws InterruptedException {
    List<Row> rows = run(window(WindowKind.HOP, 10, 5), chunk(TYPES, ud(1L, 7L), ui(1L, 12L), ins(2L, null)));
    assertThat(rows).extracting(Row::op).containsExactly(Op.DELETE, Op.DELETE, Op.INSERT, Op.INSERT);
    assertThat(rows).extracting(r -> r.values()[2]).containsExactly(0L, 5L, 5L, 10L);
  }

  @Example
  void tumbleKeepsOpsAndVisibility() throws InterruptedException {
    StreamChunk in = chunk(TYPES, ud(1L, 7L), ui(1L, 12L), ins(2L, 3L)).withVisibility(new boolean[] {true, true, false});
    List<Row> rows = run(window(WindowKind.TUMBLE, 10, 10), in);
    assertThat(rows).extracting(Row::op).containsExactly(Op.UPDATE_DELETE, Op.UPDATE_INSERT);
    assertThat(rows).extracting(r -> r.values()[2]).containsExactly(0L, 10L);
  }

  @Example
  void tumbleOfANullTimeHasNoWindow() throws InterruptedException {
    List<Row> rows = run(window(WindowKind.TUMBLE, 10, 10), chunk(TYPES, ins(2L, null)));
    assertThat(rows).allSatisfy(r -> assertThat(r.values()[2]).isNull());
  }
}

package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.visible;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.proto.plan.TopFilterNode;
import dev.tide.stream.operator.Chunks.Row;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The local phase of a group top passes a row only if no better row of its group passed before it,
 * whatever the order column's type; it drops null values and refuses retractions.
 */
class TopFilterOpTest {
  /** Group by column 0, order by column 1. */
  private static TopFilterOp filter(DataType[] types, boolean descending) {
    return new TopFilterOp(TopFilterNode.newBuilder().addGroupKeys(0).setOrderColumn(1).setDescending(descending).build(), types);
  }

  /** The values of the rows passed on, in order. */
  private static List<List<Object>> run(TopFilterOp f, DataType[] types, Row... in) throws InterruptedException {
    List<StreamChunk> out = new ArrayList<>();
    f.process(0, chunk(types, in), out::add);
    return out.stream().flatMap(c -> visible(c).stream()).map(r -> Arrays.asList(r.values())).toList();
  }

  @Test
  void passesRowsAtLeastAsGoodAsTheBestPassedInTheirGroup() throws InterruptedException {
    DataType[] types = {DataType.TIMESTAMP, DataType.BIGINT};
    TopFilterOp f = filter(types, true);
    assertThat(run(f, types, ins(0L, 5L), ins(0L, 3L), ins(10L, 1L), ins(0L, 5L), ins(0L, 7L), ins(0L, 6L), ins(10L, 0L), ins(0L, null)))
        .containsExactly(List.of(0L, 5L), List.of(10L, 1L), List.of(0L, 5L), List.of(0L, 7L));
    // The best values outlive the chunk.
    assertThat(run(f, types, ins(0L, 6L), ins(10L, 2L))).containsExactly(List.of(10L, 2L));
  }

  @Test
  void ordersDoublesAsTheyCompareWithNegativeZeroEqualToZero() throws InterruptedException {
    DataType[] types = {DataType.BIGINT, DataType.DOUBLE};
    TopFilterOp max = filter(types, true);
    assertThat(run(max, types, ins(1L, -2.5), ins(1L, -3.0), ins(1L, 0.0), ins(1L, -0.0), ins(1L, -1.0), ins(1L, Double.NaN),
        ins(1L, Double.POSITIVE_INFINITY)))
        .containsExactly(List.of(1L, -2.5), List.of(1L, 0.0), List.of(1L, -0.0), List.of(1L, Double.NaN));
    TopFilterOp min = filter(types, false);
    assertThat(run(min, types, ins(1L, 2.0), ins(1L, Double.NEGATIVE_INFINITY), ins(1L, -1e300)))
        .containsExactly(List.of(1L, 2.0), List.of(1L, Double.NEGATIVE_INFINITY));
  }

  @Test
  void ordersTextAndBooleansAndGroupsByAnyKeyType() throws InterruptedException {
    DataType[] text = {DataType.VARCHAR, DataType.VARCHAR};
    TopFilterOp f = filter(text, true);
    assertThat(run(f, text, ins("a", "m"), ins("a", "b"), ins(null, "b"), ins("a", "z"), ins(null, "a"), ins(null, "b")))
        .containsExactly(List.of("a", "m"), Arrays.asList(null, "b"), List.of("a", "z"), Arrays.asList(null, "b"));
    DataType[] bools = {DataType.INT, DataType.BOOLEAN};
    TopFilterOp min = filter(bools, false);
    assertThat(run(min, bools, ins(1, true), ins(1, false), ins(1, true), ins(2, true)))
        .containsExactly(List.of(1, true), List.of(1, false), List.of(2, true));
  }

  @Test
  void refusesARetraction() {
    DataType[] types = {DataType.BIGINT, DataType.BIGINT};
    assertThatThrownBy(() -> run(filter(types, true), types, ins(1L, 1L), del(1L, 1L)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("append-only");
  }
}

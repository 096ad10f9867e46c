package dev.tide.stream.operator;

import static dev.tide.stream.operator.Chunks.chunk;
import static dev.tide.stream.operator.Chunks.del;
import static dev.tide.stream.operator.Chunks.ins;
import static dev.tide.stream.operator.Chunks.ud;
import static dev.tide.stream.operator.Chunks.ui;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.types.DataType;
import dev.tide.common.types.Field;
import dev.tide.common.types.Schema;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A view's table after a changelog: upserts by key, deletes by key, updates that keep or change their key. */
class MaterializeOpTest {
  private static final DataType[] TYPES = {DataType.BIGINT, DataType.BIGINT};

  /** A view of (k BIGINT, v) keyed by k. */
  private static Harness harness(DataType valueType) {
    PlanBuilder p = new PlanBuilder("mv");
    p.table("t", Schema.of(new Field("k", DataType.BIGINT), new Field("v", valueType)), new int[] {0}).materialize("t");
    return new Harness(p.build());
  }

  private static MaterializeOp open(Harness h) {
    PlanNode node = h.node(PlanNode.KindCase.MATERIALIZE);
    MaterializeOp mv = new MaterializeOp(node.getMaterialize().getTableId(), h.context(node));
    mv.open();
    return mv;
  }

  /** The view's committed rows, as "[k, v]". */
  private static List<String> values(Harness h) {
    TableCatalog t = h.job.getTablesList().stream().filter(TableCatalog::getIsMv).findFirst().orElseThrow();
    List<String> rows = new ArrayList<>();
    for (Object[] row : StateTable.scanAll(h.store, t)) {
      rows.add(Arrays.toString(Arrays.copyOf(row, 2)));
    }
    return rows;
  }

  @Test
  void updatesThatKeepTheirKeyOverwriteAndUpdatesThatChangeItMove() throws Exception {
    Harness h = harness(DataType.BIGINT);
    MaterializeOp mv = open(h);
    List<StreamChunk> out = new ArrayList<>();
    mv.onBarrier(h.barrier(), out::add);
    mv.process(0, chunk(TYPES, ins(1L, 10L), ins(2L, 20L), ins(3L, 30L)), out::add);
    mv.onBarrier(h.barrier(), out::add);
    // 1 keeps its key; 2 moves to key 4 (an update pair across keys); 3 is deleted.
    mv.process(0, chunk(TYPES, ud(1L, 10L), ui(1L, 11L), ud(2L, 20L), ui(4L, 21L), del(3L, 30L)), out::add);
    mv.onBarrier(h.barrier(), out::add);

    assertThat(values(h)).containsExactlyInAnyOrder("[1, 11]", "[4, 21]");
  }

  @Test
  void rowsLongerThanTheEncodingBufferAreWrittenWhole() throws Exception {
    DataType[] types = {DataType.BIGINT, DataType.VARCHAR};
    Harness h = harness(DataType.VARCHAR);
    MaterializeOp mv = open(h);
    List<StreamChunk> out = new ArrayList<>();
    String longer = "x".repeat(300);
    String longest = "y".repeat(5000);
    mv.onBarrier(h.barrier(), out::add);
    mv.process(0, chunk(types, ins(1L, longer), ins(2L, "short")), out::add);
    mv.process(0, chunk(types, ud(2L, "short"), ui(2L, longest)), out::add);
    mv.onBarrier(h.barrier(), out::add);

    assertThat(values(h)).containsExactlyInAnyOrder("[1, " + longer + "]", "[2, " + longest + "]");
  }
}

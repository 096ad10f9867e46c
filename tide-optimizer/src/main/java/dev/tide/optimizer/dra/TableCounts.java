package dev.tide.optimizer.dra;

import dev.tide.optimizer.group.TableLoad;
import java.util.List;

/** Tables of a group per optimizing status. */
public record TableCounts(int idle, int pending, int planning, int optimizing, int committing) {
  public static final TableCounts NONE = new TableCounts(0, 0, 0, 0, 0);

  public TableCounts {
    if (idle < 0 || pending < 0 || planning < 0 || optimizing < 0 || committing < 0) {
      throw new IllegalArgumentException("table counts must be ≥ 0");
    }
  }

  /** Only {@code pending} tables PENDING, none in any other status. */
  public static TableCounts pendingOnly(int pending) {
    return new TableCounts(0, pending, 0, 0, 0);
  }

  public static TableCounts of(List<TableLoad> tables) {
    int[] n = new int[5];
    for (TableLoad t : tables) {
      n[t.status().ordinal()]++;
    }
    return new TableCounts(n[0], n[1], n[2], n[3], n[4]);
  }
}

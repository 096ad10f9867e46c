package dev.tide.stream.operator;

import dev.tide.common.chunk.Column;
import dev.tide.common.chunk.LongColumn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The keys an operator holds state under, indexed by one key column whose values are windows, so
 * that the windows a watermark has passed can be forgotten. The index starts at the first
 * {@link #takeBelow}, from the keys of the state the operator owns then (after a start or a vnode
 * change, see {@link #reset}), and follows {@link #add} from there. Thread-safety: confined to the
 * actor thread.
 */
final class WindowKeys {
  private final int window;
  private NavigableMap<Long, Set<List<Object>>> byWindow;

  /** The position of {@code column} among {@code keys}, or -1: where a watermark on it falls in a key. */
  static int position(int[] keys, int column) {
    for (int k = 0; k < keys.length; k++) {
      if (keys[k] == column) {
        return k;
      }
    }
    return -1;
  }

  /** Whether row {@code row} has no window, or one below {@code closedBelow}: late, once the window closed. */
  static boolean late(Column window, int row, long closedBelow) {
    return window.isNull(row) || ((LongColumn) window).getLong(row) < closedBelow;
  }

  /** @param window the position of the window column in the keys */
  WindowKeys(int window) {
    this.window = window;
  }

  /** Records a key that now has state (nothing until the index has started). */
  void add(Object[] key) {
    if (byWindow == null) {
      return;
    }
    Object w = key[window];
    if (w != null) {
      byWindow.computeIfAbsent((Long) w, x -> new HashSet<>()).add(Arrays.asList(key));
    }
  }

  /**
   * Removes and returns the keys whose window is below {@code bound}; on the first call after a
   * start or {@link #reset}, first indexes {@code owned}, the keys of the state owned now.
   */
  List<Object[]> takeBelow(long bound, Supplier<List<Object[]>> owned) {
    if (byWindow == null) {
      byWindow = new TreeMap<>();
      owned.get().forEach(this::add);
    }
    SortedMap<Long, Set<List<Object>>> closed = byWindow.headMap(bound);
    List<Object[]> keys = new ArrayList<>();
    for (Set<List<Object>> ks : closed.values()) {
      ks.forEach(k -> keys.add(k.toArray()));
    }
    closed.clear();
    return keys;
  }

  /** The owned state changed (a vnode change): index it again at the next {@link #takeBelow}. */
  void reset() {
    byWindow = null;
  }
}

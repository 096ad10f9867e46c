package dev.tide.meta.scale;

import dev.tide.common.hash.VnodeBitmap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

/**
 * Locality-keeping redistribution of units (vnodes of a hash fragment, splits of a source) over a
 * new set of owners. Pure and deterministic: the result depends only on the arguments.
 */
public final class Rebalancer {
  private Rebalancer() {}

  /**
   * New owners' unit sets: {@code survivors} are the current sets of the owners that stay (in order);
   * units held by nobody (e.g. of removed owners) are free. Returns the survivors' new sets (same
   * order) followed by {@code added} new sets.
   *
   * <p>Contract, with {@code U = unitCount}, {@code M = survivors + added}, {@code q = U / M},
   * {@code r = U % M}:
   * <ul>
   *   <li>Every unit is owned exactly once; every set has {@code q} or {@code q + 1} units (exactly
   *       {@code r} sets have {@code q + 1}).
   *   <li>Fewest units move: a survivor keeps {@code min(current, quota)} of its units, and the
   *       {@code r} larger quotas go first to the survivors that can use them (those holding more than
   *       {@code q}, most first, ties by order). That is the maximum of {@code Σ min(c_i, t_i)} over
   *       all quota assignments, so {@code U - that} units move.
   *   <li>Larger quotas left over go next to the new sets (in order), and only then to the remaining
   *       survivors (most first, ties by order). Among the optimal assignments this one disturbs the
   *       fewest survivors: migrating one owner of a balanced layout (one survivor fewer, one added)
   *       changes no other owner's set.
   *   <li>A shrinking survivor keeps a subset of its old set (its lowest units); a growing one keeps
   *       all of its set. Free units are handed out in ascending order, first to the growing
   *       survivors (in order), then to the new sets (in order).
   * </ul>
   *
   * @throws IllegalArgumentException if there is no owner, {@code added < 0}, a set is over a
   *     different unit count, or two survivors hold the same unit
   */
  public static List<VnodeBitmap> rebalance(List<VnodeBitmap> survivors, int added, int unitCount) {
    int k = survivors.size();
    int m = k + added;
    if (unitCount < 0) {
      throw new IllegalArgumentException("rebalance refused: unit count " + unitCount + " is negative");
    }
    if (added < 0) {
      throw new IllegalArgumentException("rebalance of " + unitCount + " units refused: " + added + " new owners is negative");
    }
    if (m == 0) {
      throw new IllegalArgumentException("rebalance of " + unitCount + " units refused: no survivor and no new owner would hold them");
    }
    BitSet held = new BitSet(unitCount);
    int[] size = new int[k];
    for (int i = 0; i < k; i++) {
      VnodeBitmap s = survivors.get(i);
      if (s.vnodeCount() != unitCount) {
        throw new IllegalArgumentException("rebalance refused: survivor " + i + " holds a set over " + s.vnodeCount()
            + " units, expected " + unitCount);
      }
      BitSet b = s.toBitSet();
      if (b.intersects(held)) {
        b.and(held);
        throw new IllegalArgumentException("rebalance refused: survivor " + i + " holds units " + VnodeBitmap.ofBits(unitCount, b)
            + " that an earlier survivor holds too");
      }
      held.or(s.toBitSet());
      size[i] = s.cardinality();
    }

    int q = unitCount / m;
    int ceil = unitCount % m;
    int[] quota = new int[m];
    Arrays.fill(quota, q);
    Comparator<Integer> mostFirst = Comparator.<Integer>comparingInt(i -> -size[i]).thenComparingInt(i -> i);
    List<Integer> canUse = new ArrayList<>();
    List<Integer> rest = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      (size[i] > q ? canUse : rest).add(i);
    }
    canUse.sort(mostFirst);
    rest.sort(mostFirst);
    for (int i : canUse) {
      if (ceil == 0) {
        break;
      }
      quota[i]++;
      ceil--;
    }
    for (int j = k; j < m && ceil > 0; j++) {
      quota[j]++;
      ceil--;
    }
    for (int i : rest) {
      if (ceil == 0) {
        break;
      }
      quota[i]++;
      ceil--;
    }

    BitSet[] out = new BitSet[m];
    BitSet free = new BitSet(unitCount);
    free.set(0, unitCount);
    for (int i = 0; i < k; i++) {
      BitSet keep = survivors.get(i).toBitSet();
      if (size[i] > quota[i]) {
        // keep the lowest quota[i] units
        int cut = keep.nextSetBit(0);
        for (int n = 0; n < quota[i]; n++) {
          cut = keep.nextSetBit(cut + 1);
        }
        if (cut >= 0) {
          keep.clear(cut, unitCount);
        }
      }
      out[i] = keep;
      free.andNot(keep);
    }
    for (int j = k; j < m; j++) {
      out[j] = new BitSet(unitCount);
    }
    int next = free.nextSetBit(0);
    for (int j = 0; j < m; j++) {
      for (int need = quota[j] - out[j].cardinality(); need > 0; need--) {
        out[j].set(next);
        next = free.nextSetBit(next + 1);
      }
    }
    List<VnodeBitmap> result = new ArrayList<>(m);
    for (BitSet b : out) {
      result.add(VnodeBitmap.ofBits(unitCount, b));
    }
    return result;
  }

  /** {@link #rebalance} over split ids {@code 0..splitCount-1}, as sorted lists. */
  public static List<List<Integer>> rebalanceSplits(List<List<Integer>> survivors, int added, int splitCount) {
    List<VnodeBitmap> sets = new ArrayList<>(survivors.size());
    for (List<Integer> s : survivors) {
      sets.add(VnodeBitmap.of(splitCount, s.stream().mapToInt(Integer::intValue).toArray()));
    }
    List<List<Integer>> out = new ArrayList<>();
    for (VnodeBitmap b : rebalance(sets, added, splitCount)) {
      out.add(Arrays.stream(b.toArray()).boxed().toList());
    }
    return out;
  }
}

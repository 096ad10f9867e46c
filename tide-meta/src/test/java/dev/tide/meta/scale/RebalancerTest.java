package dev.tide.meta.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.schedule.Layouts;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The rebalancer against an independently computed minimum of moved units. */
class RebalancerTest {

  /** A current layout: {@code survivors} sets (disjoint, maybe leaving units free) and how many sets are added. */
  record Case(int units, List<VnodeBitmap> survivors, int added, String how) {
    @Override
    public String toString() {
      return "Case[units=" + units + ", survivors=" + survivors.stream().map(VnodeBitmap::cardinality).toList() + ", added=" + added
          + ", " + how + "]";
    }
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Integer> units = Arbitraries.oneOf(Arbitraries.integers().between(1, 4096), Arbitraries.of(1, 2, 3, 7, 64, 255, 256, 257));
    Arbitrary<Integer> owners = Arbitraries.integers().between(0, 40);
    Arbitrary<Integer> small = Arbitraries.integers().between(0, 12);
    return Combinators.combine(units, Arbitraries.oneOf(small, owners), small, Arbitraries.oneOf(small, owners), Arbitraries.of("balanced",
        "random", "skewed", "partial"), Arbitraries.longs())
        .as((u, survivors, removed, added, how, seed) -> {
          int owners1 = survivors + removed;
          int add = survivors + added == 0 ? 1 : added;
          return new Case(u, layout(u, owners1, how, new Random(seed)).subList(0, survivors), add, how);
        });
  }

  /** {@code owners} disjoint sets over {@code units}, shuffled so survivors are a random choice. */
  static List<VnodeBitmap> layout(int units, int owners, String how, Random rnd) {
    List<BitSet> sets = new ArrayList<>();
    for (int i = 0; i < owners; i++) {
      sets.add(new BitSet(units));
    }
    if (owners > 0) {
      switch (how) {
        case "balanced" -> {
          List<Integer> perm = new ArrayList<>();
          for (int u = 0; u < units; u++) {
            perm.add(u);
          }
          if (rnd.nextBoolean()) {
            Collections.shuffle(perm, rnd);
          }
          for (int i = 0; i < owners; i++) {
            for (int p = (int) ((long) i * units / owners); p < (long) (i + 1) * units / owners; p++) {
              sets.get(i).set(perm.get(p));
            }
          }
        }
        case "random" -> {
          for (int u = 0; u < units; u++) {
            sets.get(rnd.nextInt(owners)).set(u);
          }
        }
        case "skewed" -> {
          for (int u = 0; u < units; u++) {
            sets.get(Math.min(owners - 1, (int) Math.floor(-Math.log(1 - rnd.nextDouble()) * 1.5))).set(u);
          }
        }
        default -> { // partial: some units held by nobody
          for (int u = 0; u < units; u++) {
            if (rnd.nextInt(4) != 0) {
              sets.get(rnd.nextInt(owners)).set(u);
            }
          }
        }
      }
      Collections.shuffle(sets, rnd);
    }
    List<VnodeBitmap> out = new ArrayList<>();
    sets.forEach(b -> out.add(VnodeBitmap.ofBits(units, b)));
    return out;
  }

  /** Units moved: not kept by the survivor that held them (free units always move). */
  static int moved(List<VnodeBitmap> survivors, List<VnodeBitmap> result) {
    int units = result.get(0).vnodeCount();
    int kept = 0;
    for (int i = 0; i < survivors.size(); i++) {
      kept += survivors.get(i).and(result.get(i)).cardinality();
    }
    return units - kept;
  }

  /**
   * The fewest units any balanced assignment moves: {@code U - max Σ min(c_i, t_i)} over quota
   * assignments t (each q or q+1, exactly r = U mod M of them q+1 among all M sets, new sets
   * included). A new set keeps nothing, so only survivors count. Closed form: a larger quota helps
   * survivor i only if c_i > q, and survivors can take up to min(r, k) of them, so the maximum is
   * {@code Σ min(c_i, q) + min(r, #{i : c_i > q})}.
   */
  static int minimumMoved(int units, List<Integer> sizes, int added) {
    int k = sizes.size();
    int m = k + added;
    int q = units / m;
    int r = units % m;
    int keep = 0;
    int canUse = 0;
    for (int c : sizes) {
      keep += Math.min(c, q);
      canUse += c > q ? 1 : 0;
    }
    return units - keep - Math.min(r, canUse);
  }

  /** The same minimum by brute force over which survivors get the larger quota (small k only). */
  static int minimumMovedBruteForce(int units, List<Integer> sizes, int added) {
    int k = sizes.size();
    int m = k + added;
    int q = units / m;
    int r = units % m;
    int best = -1;
    for (int mask = 0; mask < (1 << k); mask++) {
      int ceilToSurvivors = Integer.bitCount(mask);
      // the other r - ceilToSurvivors larger quotas must fit on the new sets
      if (ceilToSurvivors > r || r - ceilToSurvivors > added) {
        continue;
      }
      int keep = 0;
      for (int i = 0; i < k; i++) {
        keep += Math.min(sizes.get(i), q + ((mask >> i) & 1));
      }
      best = Math.max(best, keep);
    }
    return units - best;
  }

  @Property(tries = 400)
  void everyUnitOwnedOnceBalancedMinimalLocalAndDeterministic(@ForAll("cases") Case c) {
    List<VnodeBitmap> result = Rebalancer.rebalance(c.survivors(), c.added(), c.units());
    int m = c.survivors().size() + c.added();
    assertThat(result).hasSize(m);
    Jobs.checkPartition("rebalance", c.units(), result, true);
    int q = c.units() / m;
    assertThat(result.stream().filter(s -> s.cardinality() == q + 1).count()).isEqualTo(c.units() % m);

    List<Integer> sizes = c.survivors().stream().map(VnodeBitmap::cardinality).toList();
    if (sizes.size() <= 10) {
      assertThat(minimumMoved(c.units(), sizes, c.added())).isEqualTo(minimumMovedBruteForce(c.units(), sizes, c.added()));
    }
    assertThat(moved(c.survivors(), result)).isEqualTo(minimumMoved(c.units(), sizes, c.added()));

    for (int i = 0; i < c.survivors().size(); i++) {
      VnodeBitmap before = c.survivors().get(i);
      VnodeBitmap after = result.get(i);
      if (after.cardinality() <= before.cardinality()) {
        assertThat(after.isSubsetOf(before)).as("survivor %d shrinks to a subset", i).isTrue();
      } else {
        assertThat(before.isSubsetOf(after)).as("survivor %d grows keeping all", i).isTrue();
      }
    }
    assertThat(Rebalancer.rebalance(new ArrayList<>(c.survivors()), c.added(), c.units())).isEqualTo(result);
  }

  @Property(tries = 300)
  void migratingOneOwnerOfABalancedLayoutTouchesNoOther(@ForAll("cases") Case c, @ForAll long seed) {
    List<VnodeBitmap> all = layout(c.units(), c.survivors().size() + 1, "balanced", new Random(seed));
    int gone = new Random(seed).nextInt(all.size());
    List<VnodeBitmap> survivors = new ArrayList<>(all);
    survivors.remove(gone);
    List<VnodeBitmap> result = Rebalancer.rebalance(survivors, 1, c.units());
    assertThat(result.subList(0, survivors.size())).isEqualTo(survivors);
    assertThat(result.get(survivors.size())).isEqualTo(all.get(gone));
  }

  @Property(tries = 200)
  void ceilQuotasGoToTheSurvivorsHoldingTheMost(@ForAll("cases") Case c) {
    List<VnodeBitmap> result = Rebalancer.rebalance(c.survivors(), c.added(), c.units());
    int m = c.survivors().size() + c.added();
    int q = c.units() / m;
    // a survivor holding more than q that ends at q while one holding less ends at q + 1 would waste a kept unit
    for (int i = 0; i < c.survivors().size(); i++) {
      for (int j = 0; j < c.survivors().size(); j++) {
        if (c.survivors().get(i).cardinality() > q && result.get(i).cardinality() == q && result.get(j).cardinality() == q + 1) {
          assertThat(c.survivors().get(j).cardinality()).as("survivor %d got the larger quota over %d", j, i)
              .isGreaterThanOrEqualTo(c.survivors().get(i).cardinality());
        }
      }
    }
  }

  static List<VnodeBitmap> contiguous(int units, int n) {
    List<VnodeBitmap> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(Layouts.contiguous(units, i, n));
    }
    return out;
  }

  @Example
  void threeToFourActorsOf256VnodesMoves64() {
    List<VnodeBitmap> three = contiguous(256, 3);
    List<VnodeBitmap> four = Rebalancer.rebalance(three, 1, 256);
    assertThat(four).extracting(VnodeBitmap::cardinality).containsExactly(64, 64, 64, 64);
    assertThat(moved(three, four)).isEqualTo(64);
    for (int i = 0; i < 3; i++) {
      assertThat(four.get(i).isSubsetOf(three.get(i))).isTrue();
    }
    assertThat(four.get(3).toString()).isEqualTo("64-84,149-169,234-255");
  }

  @Example
  void fourToThreeActorsOf256VnodesMoves64() {
    List<VnodeBitmap> four = contiguous(256, 4);
    List<VnodeBitmap> three = Rebalancer.rebalance(four.subList(0, 3), 0, 256);
    assertThat(three).extracting(VnodeBitmap::cardinality).containsExactly(86, 85, 85);
    assertThat(moved(four.subList(0, 3), three)).isEqualTo(64);
    for (int i = 0; i < 3; i++) {
      assertThat(four.get(i).isSubsetOf(three.get(i))).isTrue();
    }
  }

  @Example
  void newSetsTakeFreeUnitsInAscendingOrder() {
    List<VnodeBitmap> result = Rebalancer.rebalance(List.of(VnodeBitmap.of(8, 0, 1, 2, 3, 4, 5)), 2, 8);
    assertThat(result).extracting(VnodeBitmap::toString).containsExactly("0-2", "3-5", "6-7");
  }

  @Example
  void fromNothing() {
    assertThat(Rebalancer.rebalance(List.of(), 3, 10)).extracting(VnodeBitmap::toString).containsExactly("0-3", "4-6", "7-9");
    assertThat(Rebalancer.rebalance(List.of(), 3, 2)).extracting(VnodeBitmap::toString).containsExactly("0", "1", "");
  }

  @Example
  void refusesBadInput() {
    assertThatThrownBy(() -> Rebalancer.rebalance(List.of(), 0, 8)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no survivor and no new owner");
    assertThatThrownBy(() -> Rebalancer.rebalance(List.of(VnodeBitmap.of(8, 1, 2), VnodeBitmap.of(8, 2, 3)), 0, 8))
        .hasMessageContaining("survivor 1 holds units 2");
    assertThatThrownBy(() -> Rebalancer.rebalance(List.of(VnodeBitmap.full(4)), 0, 8)).hasMessageContaining("over 4 units, expected 8");
    assertThatThrownBy(() -> Rebalancer.rebalance(List.of(VnodeBitmap.full(8)), -1, 8)).hasMessageContaining("-1 new owners");
  }

  @Example
  void splitsRebalanceLikeVnodes() {
    List<List<Integer>> four = Rebalancer.rebalanceSplits(List.of(List.of(0, 3, 6), List.of(1, 4, 7), List.of(2, 5)), 1, 8);
    assertThat(four).containsExactly(List.of(0, 3), List.of(1, 4), List.of(2, 5), List.of(6, 7));
  }
}

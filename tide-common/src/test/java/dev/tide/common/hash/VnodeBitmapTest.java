package dev.tide.common.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Vnode bitmaps against a {@link TreeSet} model: RLE print/parse, set algebra, owner arrays, refusals. */
class VnodeBitmapTest {

  record Two(int vnodeCount, Set<Integer> a, Set<Integer> b) {}

  /** Sets built from a few runs, so the RLE form has both single vnodes and ranges. */
  private static Arbitrary<Set<Integer>> runsOf(int vnodeCount) {
    Arbitrary<int[]> run = Combinators.combine(Arbitraries.integers().between(0, vnodeCount - 1), Arbitraries.integers().between(0, 5))
        .as((from, len) -> new int[] {from, Math.min(vnodeCount - 1, from + len)});
    Arbitrary<Set<Integer>> runs = run.list().ofMaxSize(6).map(list -> {
      Set<Integer> s = new TreeSet<>();
      for (int[] r : list) {
        for (int v = r[0]; v <= r[1]; v++) {
          s.add(v);
        }
      }
      return s;
    });
    return Arbitraries.oneOf(runs, Arbitraries.integers().between(0, vnodeCount - 1).set().ofMaxSize(40));
  }

  @Provide
  Arbitrary<Two> pairs() {
    return Arbitraries.oneOf(Arbitraries.of(1, 2, 64, 256), Arbitraries.integers().between(1, 32768))
        .flatMap(n -> Combinators.combine(runsOf(n), runsOf(n)).as((a, b) -> new Two(n, a, b)));
  }

  private static VnodeBitmap bitmap(int n, Set<Integer> s) {
    return VnodeBitmap.of(n, s.stream().mapToInt(Integer::intValue).toArray());
  }

  private static Set<Integer> set(VnodeBitmap b) {
    Set<Integer> s = new TreeSet<>();
    for (int v : b.toArray()) {
      s.add(v);
    }
    return s;
  }

  @Property(tries = 1000)
  void printsMaximalAscendingRunsAndParsesBack(@ForAll("pairs") Two t) {
    VnodeBitmap b = bitmap(t.vnodeCount(), t.a());
    String rle = b.toString();
    assertThat(rle).matches("(\\d+(-\\d+)?(,\\d+(-\\d+)?)*)?");
    assertThat(VnodeBitmap.parse(t.vnodeCount(), rle)).isEqualTo(b);
    List<int[]> runs = b.runs();
    for (int i = 0; i < runs.size(); i++) {
      assertThat(runs.get(i)[0]).isLessThanOrEqualTo(runs.get(i)[1]);
      if (i > 0) {
        assertThat(runs.get(i)[0]).as("runs are maximal: a gap separates them").isGreaterThan(runs.get(i - 1)[1] + 1);
      }
      if (runs.get(i)[0] == runs.get(i)[1]) {
        assertThat(rle.split(",")[i]).isEqualTo(String.valueOf(runs.get(i)[0]));
      }
    }
    assertThat(b.cardinality()).isEqualTo(t.a().size());
    assertThat(b.isEmpty()).isEqualTo(t.a().isEmpty());
    assertThat(set(b)).isEqualTo(t.a());
  }

  @Property(tries = 1000)
  void setAlgebraMatchesTheModel(@ForAll("pairs") Two t) {
    int n = t.vnodeCount();
    VnodeBitmap a = bitmap(n, t.a());
    VnodeBitmap b = bitmap(n, t.b());
    Set<Integer> and = new TreeSet<>(t.a());
    and.retainAll(t.b());
    Set<Integer> or = new TreeSet<>(t.a());
    or.addAll(t.b());
    Set<Integer> andNot = new TreeSet<>(t.a());
    andNot.removeAll(t.b());
    assertThat(set(a.and(b))).isEqualTo(and);
    assertThat(set(a.or(b))).isEqualTo(or);
    assertThat(set(a.andNot(b))).isEqualTo(andNot);
    assertThat(a.isSubsetOf(b)).isEqualTo(t.b().containsAll(t.a()));
    assertThat(a.and(b).isSubsetOf(a)).isTrue();
    assertThat(a.isSubsetOf(a.or(b))).isTrue();
    // Operations never modify their operands.
    assertThat(set(a)).isEqualTo(t.a());
    assertThat(set(b)).isEqualTo(t.b());
    for (int v : new int[] {0, n - 1}) {
      assertThat(a.contains(v)).isEqualTo(t.a().contains(v));
    }
  }

  @Property(tries = 300)
  void ownerArrayOfAPartitionNamesEachVnodesOwner(@ForAll("pairs") Two t) {
    int n = t.vnodeCount();
    VnodeBitmap a = bitmap(n, t.a());
    VnodeBitmap rest = VnodeBitmap.full(n).andNot(a);
    int[] owner = VnodeBitmap.ownerArray(n, List.of(a, rest));
    for (int v = 0; v < n; v++) {
      assertThat(owner[v]).isEqualTo(t.a().contains(v) ? 0 : 1);
    }
  }

  @Example
  void ownerArrayMarksUnownedVnodesAndRefusesOverlapsAndOtherCounts() {
    assertThat(VnodeBitmap.ownerArray(4, List.of(VnodeBitmap.of(4, 1)))).containsExactly(-1, 0, -1, -1);
    assertThatThrownBy(() -> VnodeBitmap.ownerArray(4, List.of(VnodeBitmap.of(4, 1, 2), VnodeBitmap.of(4, 2))))
        .hasMessageContaining("vnode 2 is in bitmaps 0 and 1");
    assertThatThrownBy(() -> VnodeBitmap.ownerArray(256, List.of(VnodeBitmap.full(1))))
        .hasMessageContaining("256").hasMessageContaining("bitmap 0 is over 1 vnodes");
  }

  @Example
  void emptyAndFullForms() {
    assertThat(VnodeBitmap.empty(256).toString()).isEmpty();
    assertThat(VnodeBitmap.parse(256, "")).isEqualTo(VnodeBitmap.empty(256));
    assertThat(VnodeBitmap.full(256).toString()).isEqualTo("0-255");
    assertThat(VnodeBitmap.full(1).toString()).isEqualTo("0");
    assertThat(VnodeBitmap.parse(256, "0-63, 128-191,200")).isEqualTo(VnodeBitmap.parse(256, "0-63,128-191,200-200"));
    assertThat(VnodeBitmap.parse(256, "0-63,128-191,200").toString()).isEqualTo("0-63,128-191,200");
  }

  @Example
  void badTextIsRefusedNamingThePart() {
    assertThatThrownBy(() -> VnodeBitmap.parse(256, "0-256")).hasMessageContaining("vnode 256 out of range 0..255");
    assertThatThrownBy(() -> VnodeBitmap.parse(256, "9-3")).hasMessageContaining("'9-3' is reversed");
    assertThatThrownBy(() -> VnodeBitmap.parse(256, "1,x")).hasMessageContaining("'x' is not of the form N or N-M");
    assertThatThrownBy(() -> VnodeBitmap.parse(256, "-5")).hasMessageContaining("'-5'");
    assertThatThrownBy(() -> VnodeBitmap.parse(256, "1,,2")).hasMessageContaining("''");
    assertThatThrownBy(() -> VnodeBitmap.of(8, 8)).hasMessageContaining("vnode 8 out of range 0..7");
    BitSet tooBig = new BitSet();
    tooBig.set(300);
    assertThatThrownBy(() -> VnodeBitmap.ofBits(256, tooBig)).hasMessageContaining("vnode 300 out of range");
  }

  @Example
  void bitmapsOverDifferentVnodeCountsDoNotMix() {
    VnodeBitmap a = VnodeBitmap.full(4);
    VnodeBitmap b = VnodeBitmap.full(8);
    assertThat(a).isNotEqualTo(VnodeBitmap.of(8, 0, 1, 2, 3));
    assertThatThrownBy(() -> a.or(b)).hasMessageContaining("vnode counts differ (4 and 8)");
    assertThatThrownBy(() -> a.and(b)).hasMessageContaining("vnode counts differ");
    assertThatThrownBy(() -> a.andNot(b)).hasMessageContaining("vnode counts differ");
    assertThatThrownBy(() -> a.isSubsetOf(b)).hasMessageContaining("vnode counts differ");
  }

  @Example
  void ofBitsCopiesItsInput() {
    BitSet bits = new BitSet();
    bits.set(3);
    VnodeBitmap b = VnodeBitmap.ofBits(8, bits);
    bits.set(4);
    assertThat(b.toString()).isEqualTo("3");
    b.toBitSet().set(5);
    assertThat(b.toString()).isEqualTo("3");
  }
}

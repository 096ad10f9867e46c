package dev.tide.stream.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class KeyHashTest {
  @Property(tries = 300)
  void prefixAndWholeHashesEqualSeparateHashes(@ForAll long seed) {
    Random rnd = new Random(seed);
    byte[] key = new byte[rnd.nextInt(40)];
    rnd.nextBytes(key);
    int prefixLen = key.length == 0 ? 0 : rnd.nextInt(key.length + 1);
    long both = KeyHash.ofPrefixAndWhole(key, prefixLen, key.length);
    assertThat((int) both).isEqualTo(KeyHash.of(key, key.length));
    assertThat((int) (both >>> 32)).isEqualTo(KeyHash.of(Arrays.copyOf(key, prefixLen), prefixLen));
  }

  @Property(tries = 300)
  void aSliceHashesAsACopyOfIt(@ForAll long seed) {
    Random rnd = new Random(seed);
    byte[] a = new byte[rnd.nextInt(50)];
    rnd.nextBytes(a);
    int from = rnd.nextInt(a.length + 1);
    int len = rnd.nextInt(a.length - from + 1);
    assertThat(KeyHash.of(a, from, len)).isEqualTo(KeyHash.of(Arrays.copyOfRange(a, from, from + len), len));
  }

  @Test
  void hashesOnlyTheGivenBytesAndTellsLengthsApart() {
    byte[] a = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    byte[] b = {1, 2, 3, 4, 5, 6, 7, 8, 42};
    assertThat(KeyHash.of(a, 8)).isEqualTo(KeyHash.of(b, 8));
    assertThat(KeyHash.of(a, 9)).isNotEqualTo(KeyHash.of(b, 9));
    // Zero bytes at the end change the hash: keys differing only in trailing zeros are distinct.
    byte[] zeros = new byte[16];
    Set<Integer> hashes = new HashSet<>();
    for (int len = 0; len <= 16; len++) {
      int h = KeyHash.of(zeros, len);
      assertThat(h).isNotZero();
      hashes.add(h);
    }
    assertThat(hashes).hasSize(17);
  }
}

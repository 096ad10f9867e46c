package dev.tide.stream.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.storage.ByteArena;
import dev.tide.storage.SortedWriteBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The memtable against a sorted-map model over state keys of a few vnodes: the last write of a key
 * wins, in log and in sorted mode, whether written through the hash index or appended past it
 * (taken in by the next read, or deduplicated by the drain); keys given as the start of a reused buffer (as state tables
 * write them from their key encoder) behave as keys given as arrays of their own.
 */
class MemtablePropertyTest {
  @Property(tries = 300)
  void drainsTheLastWriteOfEveryKeyInKeyOrder(@ForAll long seed) {
    Random rnd = new Random(seed);
    int vnodeCount = 1 + rnd.nextInt(4);
    boolean large = rnd.nextInt(4) == 0;
    Memtable m = new Memtable(vnodeCount);
    byte[] scratch = new byte[32];
    List<SortedWriteBatch> batches = new ArrayList<>();
    List<List<String>> drained = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
      int writes = rnd.nextInt(300);
      boolean readEveryStep = rnd.nextInt(3) == 0;
      boolean readMidway = rnd.nextInt(3) == 0;
      for (int i = 0; i < writes; i++) {
        byte[] key = new byte[6 + (rnd.nextBoolean() ? rnd.nextInt(3) : 7 + rnd.nextInt(3))];
        key[3] = 42; // table id
        key[5] = (byte) rnd.nextInt(vnodeCount);
        for (int b = 6; b < key.length; b++) {
          key[b] = (byte) (rnd.nextInt(4) * 85);
        }
        // Values of two lengths: an overwrite of the same length goes in place, another is appended.
        byte[] value = rnd.nextInt(4) == 0 ? Memtable.TOMBSTONE : rnd.nextBoolean() ? new byte[] {(byte) i} : new byte[] {(byte) i, 7};
        if (large && rnd.nextInt(40) == 0) { // the arena's pages fill, and a value longer than a page gets its own array
          value = new byte[rnd.nextInt(ByteArena.PAGE + ByteArena.PAGE / 4)];
          rnd.nextBytes(value);
        }
        int how = rnd.nextInt(3);
        if (how == 0) {
          m.put(key, value);
        } else if (how == 1) {
          m.append(key, key.length, value, value.length); // no index lookup: keys repeat until a read or the drain
        } else {
          byte[] valueBuffer = Arrays.copyOf(value, value.length + 2); // a reused buffer, longer than the value
          m.put(inScratch(key, scratch, rnd), key.length, KeyHash.of(key, key.length), value == Memtable.TOMBSTONE ? value : valueBuffer, value.length);
          valueBuffer[0] = 99; // the memtable copied it
        }
        model.put(key, value);
        if (readMidway && rnd.nextInt(10) == 0) {
          assertThat(m.range(new byte[0], null)).as("seed " + seed + " step " + i).hasSameSizeAs(model);
          assertThat(m.range(new byte[0], null).keySet()).containsExactlyElementsOf(model.keySet());
          assertThat(m.range(new byte[0], null).values().stream().map(m::valueAt).toList()).containsExactlyElementsOf(model.values());
        }
        byte[] probe = model.firstKey();
        if (!readEveryStep && rnd.nextInt(4) != 0) {
          continue; // no read: appended entries stay out of the index
        }
        if (model.get(probe) == Memtable.TOMBSTONE) {
          assertThat(m.get(probe)).isSameAs(Memtable.TOMBSTONE);
        } else {
          assertThat(m.get(probe)).isEqualTo(model.get(probe));
          assertThat(m.get(inScratch(probe, scratch, rnd), probe.length, KeyHash.of(probe, probe.length))).isEqualTo(model.get(probe));
        }
      }
      SortedWriteBatch batch = m.drain();
      List<String> expected = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
        expected.add(Arrays.toString(e.getKey()) + "=" + (e.getValue() == Memtable.TOMBSTONE ? "delete" : Arrays.toString(e.getValue())));
      }
      List<String> actual = entries(batch);
      assertThat(actual).as("seed " + seed + " round " + round).isEqualTo(expected);
      assertThat(m.isEmpty()).isTrue();
      batches.add(batch);
      drained.add(actual);
    }
    // A batch holds the memtable's arena of its epoch: later epochs' writes must not touch it.
    for (int r = 0; r < batches.size(); r++) {
      assertThat(entries(batches.get(r))).as("seed " + seed + " batch of round " + r + " after later rounds").isEqualTo(drained.get(r));
    }
  }

  private static List<String> entries(SortedWriteBatch batch) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      out.add(Arrays.toString(batch.key(i)) + "=" + (batch.isTombstone(i) ? "delete" : Arrays.toString(batch.value(i))));
    }
    return out;
  }

  /**
   * Keys the store never held, first written by putNew: deleted within the epoch they leave nothing in
   * the drained batch; every other key drains its last write (a delete as a tombstone).
   */
  @Property(tries = 300)
  void aNewKeyDeletedInItsEpochLeavesNoTombstone(@ForAll long seed) {
    Random rnd = new Random(seed);
    Memtable m = new Memtable(2);
    java.util.Set<String> stored = new java.util.HashSet<>();
    for (int round = 0; round < 3; round++) {
      TreeMap<byte[], byte[]> last = new TreeMap<>(Arrays::compareUnsigned);
      TreeMap<byte[], Boolean> firstNew = new TreeMap<>(Arrays::compareUnsigned);
      for (int i = 0, n = rnd.nextInt(200); i < n; i++) {
        byte[] key = {0, 0, 0, 42, 0, (byte) rnd.nextInt(2), (byte) rnd.nextInt(12)};
        byte[] value = rnd.nextInt(3) == 0 ? Memtable.TOMBSTONE : new byte[] {(byte) i};
        boolean asNew = value != Memtable.TOMBSTONE && !stored.contains(Arrays.toString(key)) && rnd.nextBoolean();
        if (asNew) {
          m.putNew(key, key.length, KeyHash.of(key, key.length), value, value.length);
        } else {
          m.put(key, value);
        }
        firstNew.putIfAbsent(key, asNew);
        last.put(key, value);
        if (value == Memtable.TOMBSTONE) {
          assertThat(m.get(key)).as("a deleted key reads as deleted").isSameAs(Memtable.TOMBSTONE);
        }
      }
      List<String> expected = new ArrayList<>();
      for (Map.Entry<byte[], byte[]> e : last.entrySet()) {
        if (e.getValue() == Memtable.TOMBSTONE && firstNew.get(e.getKey())) {
          continue;
        }
        expected.add(Arrays.toString(e.getKey()) + "=" + (e.getValue() == Memtable.TOMBSTONE ? "delete" : Arrays.toString(e.getValue())));
      }
      SortedWriteBatch batch = m.drain();
      List<String> actual = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        actual.add(Arrays.toString(batch.key(i)) + "=" + (batch.isTombstone(i) ? "delete" : Arrays.toString(batch.value(i))));
        stored.add(Arrays.toString(batch.key(i)));
      }
      assertThat(actual).as("seed " + seed + " round " + round).isEqualTo(expected);
    }
  }

  /** Copies {@code key} to the start of {@code scratch} and fills the rest with random bytes. */
  private static byte[] inScratch(byte[] key, byte[] scratch, Random rnd) {
    rnd.nextBytes(scratch);
    System.arraycopy(key, 0, scratch, 0, key.length);
    return scratch;
  }
}

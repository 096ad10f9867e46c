package dev.tide.stream.state;

/**
 * A set of 32-bit fingerprints of byte strings ({@link KeyHash}es; open addressing): {@link
 * #mightContain} is never false for a string added, and true for a string never added about once
 * in {@code 2^32 / size}.
 * It holds at most {@code maxSize} fingerprints; {@link #add} refuses more.
 *
 * <p>Thread-safety: confined to one thread.
 */
final class KeyFingerprints {

  private final int maxSize;
  private int[] slots = new int[1024]; // 0 = empty; fingerprints are never 0
  private int size;

  KeyFingerprints(int maxSize) {
    this.maxSize = maxSize;
  }

  int size() {
    return size;
  }

  /** Adds fingerprint {@code f} (a {@link KeyHash}, never 0); false (and nothing added) if the set is full. */
  boolean add(int f) {
    int mask = slots.length - 1;
    for (int i = f & mask; ; i = (i + 1) & mask) {
      int s = slots[i];
      if (s == f) {
        return true;
      }
      if (s == 0) {
        if (size == maxSize) {
          return false;
        }
        slots[i] = f;
        if (++size * 2 > slots.length) {
          grow();
        }
        return true;
      }
    }
  }

  boolean mightContain(int f) {
    int mask = slots.length - 1;
    for (int i = f & mask; ; i = (i + 1) & mask) {
      int s = slots[i];
      if (s == f) {
        return true;
      }
      if (s == 0) {
        return false;
      }
    }
  }

  private void grow() {
    int[] old = slots;
    slots = new int[old.length * 2];
    int mask = slots.length - 1;
    for (int f : old) {
      if (f != 0) {
        int i = f & mask;
        while (slots[i] != 0) {
          i = (i + 1) & mask;
        }
        slots[i] = f;
      }
    }
  }
}

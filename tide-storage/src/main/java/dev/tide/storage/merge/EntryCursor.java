package dev.tide.storage.merge;

/**
 * A cursor over sorted, key-unique entries (ascending, or descending for a reverse cursor).
 *
 * <p>Key and value are exposed as slices of backing arrays to avoid a copy per entry. Backing
 * arrays are never modified, so a slice obtained from a cursor stays valid after {@link #next()};
 * callers must not modify them either. Accessors may only be called while {@link #valid()}.
 *
 * <p>Thread-safety: confined to one thread.
 */
public interface EntryCursor {
  /** Whether the cursor is positioned on an entry. */
  boolean valid();

  /** Moves to the next entry in the cursor's direction. Requires {@link #valid()}. */
  void next();

  byte[] keyArray();

  int keyOffset();

  int keyLength();

  /** The value's backing array; empty slice for a tombstone. */
  byte[] valueArray();

  int valueOffset();

  int valueLength();

  /** The epoch that wrote the entry. */
  long epoch();

  /** Whether the entry is a deletion. */
  boolean tombstone();

  /** Copy of the current key. */
  default byte[] copyKey() {
    byte[] out = new byte[keyLength()];
    System.arraycopy(keyArray(), keyOffset(), out, 0, out.length);
    return out;
  }

  /** Copy of the current value. */
  default byte[] copyValue() {
    byte[] out = new byte[valueLength()];
    System.arraycopy(valueArray(), valueOffset(), out, 0, out.length);
    return out;
  }
}

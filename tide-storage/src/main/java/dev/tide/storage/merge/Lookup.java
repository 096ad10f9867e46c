package dev.tide.storage.merge;

/**
 * The newest entry for a key in one source: a value, or a tombstone that hides older values.
 *
 * @param epoch the epoch that wrote the entry
 * @param tombstone whether the key was deleted
 * @param value the value; empty for a tombstone
 */
public record Lookup(long epoch, boolean tombstone, byte[] value) {
  private static final byte[] EMPTY = new byte[0];

  public static Lookup put(long epoch, byte[] value) {
    return new Lookup(epoch, false, value);
  }

  public static Lookup delete(long epoch) {
    return new Lookup(epoch, true, EMPTY);
  }
}

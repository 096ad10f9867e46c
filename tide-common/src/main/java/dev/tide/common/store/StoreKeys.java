package dev.tide.common.store;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Helpers for state keys: opaque byte strings ordered by unsigned lexicographic comparison.
 *
 * <p>A full state key is {@code table_id (4 bytes, big-endian) | vnode (2 bytes, big-endian) |
 * memcomparable pk}. Storage only interprets the table id prefix; keys shorter than
 * {@link #TABLE_ID_BYTES} have no table id.
 */
public final class StoreKeys {
  /** Length of the table id prefix of a state key. */
  public static final int TABLE_ID_BYTES = 4;

  /** Keys longer than this are abbreviated in error messages. */
  private static final int MAX_HEX_BYTES = 48;

  private StoreKeys() {}

  /** Unsigned lexicographic comparison, the order of every key in the store. */
  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  /** Unsigned lexicographic comparison of two {@link ByteString}s. */
  public static int compare(ByteString a, ByteString b) {
    return ByteString.unsignedLexicographicalComparator().compare(a, b);
  }

  /** Whether {@code key} is long enough to carry a table id. */
  public static boolean hasTableId(byte[] key) {
    return key.length >= TABLE_ID_BYTES;
  }

  /**
   * The table id of {@code key} (its first four bytes, big-endian, as an unsigned value).
   *
   * @throws IllegalArgumentException if the key is shorter than four bytes
   */
  public static long tableId(byte[] key) {
    if (key.length < TABLE_ID_BYTES) {
      throw new IllegalArgumentException(
          "key " + toHex(key) + " has no table id: a state key starts with a 4-byte table id");
    }
    return ((key[0] & 0xffL) << 24) | ((key[1] & 0xffL) << 16) | ((key[2] & 0xffL) << 8)
        | (key[3] & 0xffL);
  }

  /** Lower-case hex of {@code key} for messages, abbreviated after 48 bytes. */
  public static String toHex(byte[] key) {
    if (key == null) {
      return "<none>";
    }
    if (key.length <= MAX_HEX_BYTES) {
      return "0x" + HexFormat.of().formatHex(key);
    }
    return "0x" + HexFormat.of().formatHex(key, 0, MAX_HEX_BYTES) + "...(" + key.length + " bytes)";
  }

  /** Lower-case hex of {@code key} for messages, abbreviated after 48 bytes. */
  public static String toHex(ByteString key) {
    return toHex(key.toByteArray());
  }
}

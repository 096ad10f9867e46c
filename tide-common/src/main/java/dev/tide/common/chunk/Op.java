package dev.tide.common.chunk;

/** The change a row of a stream chunk carries. An UpdateDelete is always directly followed by its UpdateInsert. */
public enum Op {
  INSERT,
  DELETE,
  UPDATE_DELETE,
  UPDATE_INSERT;

  private static final Op[] VALUES = values();

  public byte code() {
    return (byte) ordinal();
  }

  public static Op of(byte code) {
    return VALUES[code];
  }

  /** Insert or UpdateInsert: the row is added. */
  public static boolean isInsert(byte code) {
    return code == 0 || code == 3;
  }

  /** +1 for rows added, -1 for rows removed. */
  public static int sign(byte code) {
    return isInsert(code) ? 1 : -1;
  }

  /** The op as a plain insert or delete (used when an update pair is split across outputs). */
  public static byte normalize(byte code) {
    return isInsert(code) ? (byte) 0 : (byte) 1;
  }
}

package dev.tide.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Key and value builders for tests. */
public final class TestKeys {
  private TestKeys() {}

  /** {@code table (4 B) | vnode (2 B) | pk as UTF-8}. */
  public static byte[] key(int table, int vnode, String pk) {
    byte[] p = pk.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(6 + p.length).putInt(table).putShort((short) vnode).put(p).array();
  }

  /** {@code table (4 B) | vnode (2 B) | i as 8 B big-endian}. */
  public static byte[] key(int table, int vnode, long i) {
    return ByteBuffer.allocate(14).putInt(table).putShort((short) vnode).putLong(i).array();
  }

  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

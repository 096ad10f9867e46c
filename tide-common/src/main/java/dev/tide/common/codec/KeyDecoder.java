package dev.tide.common.codec;

import dev.tide.common.types.DataType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Decodes what {@link KeyEncoder} wrote. Thread-safety: confined. */
public final class KeyDecoder {
  private final byte[] buf;
  private int pos;

  public KeyDecoder(byte[] buf, int offset) {
    this.buf = buf;
    this.pos = offset;
  }

  public int position() {
    return pos;
  }

  public static int tableId(byte[] key) {
    return ((key[0] & 0xFF) << 24) | ((key[1] & 0xFF) << 16) | ((key[2] & 0xFF) << 8) | (key[3] & 0xFF);
  }

  public static int vnode(byte[] key) {
    return ((key[4] & 0xFF) << 8) | (key[5] & 0xFF);
  }

  private long readRawLong() {
    long x = 0;
    for (int b = 0; b < 8; b++) {
      x = (x << 8) | (buf[pos++] & 0xFFL);
    }
    return x;
  }

  public Object read(DataType type) {
    if (buf[pos++] == 0) {
      return null;
    }
    switch (type) {
      case INT: {
        int x = ((buf[pos] & 0xFF) << 24) | ((buf[pos + 1] & 0xFF) << 16) | ((buf[pos + 2] & 0xFF) << 8) | (buf[pos + 3] & 0xFF);
        pos += 4;
        return x ^ 0x80000000;
      }
      case BIGINT:
      case TIMESTAMP:
        return readRawLong() ^ Long.MIN_VALUE;
      case DOUBLE: {
        long x = readRawLong();
        long bits = x < 0 ? x ^ Long.MIN_VALUE : ~x;
        return Double.longBitsToDouble(bits);
      }
      case BOOLEAN:
        return buf[pos++] != 0;
      case VARCHAR: {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
          byte b = buf[pos++];
          if (b == 0) {
            byte next = buf[pos++];
            if (next == 0) {
              break;
            }
            out.write(0);
          } else {
            out.write(b);
          }
        }
        return out.toString(StandardCharsets.UTF_8);
      }
      default:
        throw new IllegalStateException("unknown type " + type);
    }
  }

  /** Decodes a whole key of the given types. */
  public Object[] readAll(DataType[] types) {
    Object[] out = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      out[i] = read(types[i]);
    }
    return out;
  }
}

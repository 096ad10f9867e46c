package dev.tide.storage.object;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A store of immutable objects addressed by paths such as {@code "state/12.sst"}.
 *
 * <p>Paths are relative, {@code /}-separated, with no empty, {@code "."} or {@code ".."} segment.
 * Every operation fails with an unchecked {@link ObjectStoreException} naming the operation and
 * path; a missing object is reported as {@link ObjectNotFoundException}.
 *
 * <p>Thread-safety: implementations are safe for concurrent use.
 */
public interface ObjectStore {
  /** Stores {@code bytes} at {@code path}, atomically replacing any object there. */
  void put(String path, byte[] bytes);

  /**
   * Stores the concatenation of {@code parts} (their remaining bytes; the buffers' positions are not
   * moved) at {@code path}, atomically replacing any object there: a large object without one array
   * of its size. The default concatenates and calls {@link #put(String, byte[])}.
   */
  default void put(String path, List<ByteBuffer> parts) {
    put(path, concat(parts));
  }

  /** The remaining bytes of {@code parts}, in one array. */
  static byte[] concat(List<ByteBuffer> parts) {
    long total = 0;
    for (ByteBuffer p : parts) {
      total += p.remaining();
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("parts of " + total + " bytes do not fit one array; upload them as parts");
    }
    byte[] out = new byte[(int) total];
    int at = 0;
    for (ByteBuffer p : parts) {
      int n = p.remaining();
      p.duplicate().get(out, at, n);
      at += n;
    }
    return out;
  }

  /** The whole object at {@code path}. */
  byte[] get(String path);

  /**
   * {@code length} bytes of the object at {@code path} starting at {@code offset}.
   *
   * @throws ObjectStoreException if the range extends past the end of the object
   */
  byte[] getRange(String path, long offset, int length);

  /** Paths of all objects whose path starts with {@code prefix}, sorted ascending. */
  List<String> list(String prefix);

  /** Deletes the object at {@code path}; deleting a missing object does nothing. */
  void delete(String path);

  /** Whether an object exists at {@code path}. */
  boolean exists(String path);
}

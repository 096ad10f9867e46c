package dev.tide.storage.object;

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

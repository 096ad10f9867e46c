package dev.tide.storage.object;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The mark a meta leaves in its object store, so that a compute node can tell whether it reads and
 * writes the same state: the object {@value #PATH} holds the cluster's id, written by meta's first
 * start and sent to every node that registers. A node started with another object store (a
 * different {@code --data-dir} or bucket) is refused with both named, instead of failing later on
 * state it cannot find; so is an optimizer.
 */
public final class ClusterMark {
  static final String PATH = "cluster.id";

  private ClusterMark() {}

  /** The cluster id in {@code objects}, written from {@code newId} if there is none yet. */
  public static String ensure(ObjectStore objects, Supplier<String> newId) {
    if (objects.exists(PATH)) {
      return new String(objects.get(PATH), StandardCharsets.UTF_8).trim();
    }
    String id = newId.get();
    objects.put(PATH, id.getBytes(StandardCharsets.UTF_8));
    return id;
  }

  /**
   * Checks that {@code objects} is the object store of the cluster {@code clusterId}.
   *
   * @throws IllegalStateException naming the store, what it holds and the fix, if it is another one
   */
  public static void check(ObjectStore objects, String clusterId, String role) {
    String found = objects.exists(PATH) ? new String(objects.get(PATH), StandardCharsets.UTF_8).trim() : null;
    if (!clusterId.equals(found)) {
      throw new IllegalStateException(role + "'s object store " + objects + (found == null ? " holds no cluster mark (" + PATH + ")"
          : " belongs to cluster " + found) + ", but meta's belongs to cluster " + clusterId + ": " + role
          + " would not find the state meta commits. Give " + role + " meta's object store: the same --data-dir (or"
          + " object-store.dir), or the same S3 bucket and prefix");
    }
  }
}

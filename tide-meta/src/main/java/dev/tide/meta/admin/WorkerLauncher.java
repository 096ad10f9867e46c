package dev.tide.meta.admin;

/**
 * Starts compute nodes on request ({@code tide ctl worker add}). The embedded playground starts one
 * in its own JVM; a deployment that cannot start nodes passes none to {@link AdminGrpcService}, which
 * then answers UNIMPLEMENTED.
 *
 * <p>Thread-safety: called from gRPC threads, possibly concurrently; implementations serialize what
 * they must.
 */
@FunctionalInterface
public interface WorkerLauncher {
  /**
   * Starts a compute node offering {@code slots} slots and registers it with meta before returning.
   *
   * @param slots actor slots of the new node, at least 1
   * @return the worker id meta gave the new node
   * @throws IllegalArgumentException if the launcher refuses {@code slots}
   * @throws IllegalStateException if the node could not be started
   */
  int launch(int slots);

  /** The slots of a node started without an explicit count, at least 1. */
  default int defaultSlots() {
    return 1;
  }
}

package dev.tide.cluster;

/** Free loopback ports for tests. */
public final class ClusterTestPorts {
  private ClusterTestPorts() {}

  /** A port that was free a moment ago (nothing listens on it). */
  public static int free() {
    return ClusterProcesses.freePort();
  }
}

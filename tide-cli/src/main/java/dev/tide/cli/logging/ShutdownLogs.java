package dev.tide.cli.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences Tide's warnings while an in-process cluster shuts down. Closing a {@code LocalCluster}
 * interrupts compute nodes mid-upload, and they log the interrupted upload as a failed epoch with a
 * stack trace although nothing is wrong. Remove once {@code ComputeNode.shutdown} stops quietly.
 */
public final class ShutdownLogs {
  private static final String TIDE = "dev.tide";

  private ShutdownLogs() {}

  /** Runs {@code close} with Tide's logging at ERROR; the level stays there until {@link #restore}. */
  public static void quietly(Runnable close) {
    if (LoggerFactory.getLogger(TIDE) instanceof Logger l) {
      l.setLevel(Level.ERROR);
    }
    close.run();
  }

  /** Returns Tide's logging to its configured level (before starting the next cluster, and when the command ends). */
  public static void restore() {
    if (LoggerFactory.getLogger(TIDE) instanceof Logger l) {
      l.setLevel(null);
    }
  }
}

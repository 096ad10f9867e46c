package dev.tide.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Flink's MiniCluster warns about things that do not apply to an embedded run; the bench shows only its errors. */
final class Logs {
  private Logs() {}

  static void quietFlink() {
    if (LoggerFactory.getLogger("org.apache.flink") instanceof Logger l) {
      l.setLevel(Level.ERROR);
    }
  }
}

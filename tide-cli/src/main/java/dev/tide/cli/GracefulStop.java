package dev.tide.cli;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGTERM (what systemd and Kubernetes send) and SIGINT stop a process gracefully: {@code stop}
 * runs once, on its own thread, and the process exits 0 when it reports a clean stop, 1 otherwise.
 * Without it the JVM would run only the shutdown hooks and exit 143.
 */
final class GracefulStop {
  private static final Logger LOG = LoggerFactory.getLogger(GracefulStop.class);

  private GracefulStop() {}

  static void onTermSignal(String role, BooleanSupplier stop) {
    AtomicBoolean once = new AtomicBoolean();
    sun.misc.SignalHandler handler = signal -> {
      if (!once.compareAndSet(false, true)) {
        return;
      }
      Thread t = new Thread(() -> {
        LOG.info("{}: SIG{} received, stopping gracefully", role, signal.getName());
        boolean clean;
        try {
          clean = stop.getAsBoolean();
        } catch (RuntimeException e) {
          LOG.error("{}: graceful stop failed", role, e);
          clean = false;
        }
        System.exit(clean ? TideCli.EXIT_OK : 1);
      }, role + "-graceful-stop");
      t.start();
    };
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
      } catch (IllegalArgumentException e) {
        LOG.debug("signal {} cannot be handled here: {}", name, e.getMessage());
      }
    }
  }
}

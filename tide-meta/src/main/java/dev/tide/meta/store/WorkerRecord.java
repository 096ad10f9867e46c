package dev.tide.meta.store;

import dev.tide.meta.schedule.Worker;
import java.util.Objects;

/**
 * A registered compute node, whether it is draining (its actors are being migrated off), and the
 * compute pool's resource it was launched for ({@code ""} when started by hand).
 */
public record WorkerRecord(Worker worker, boolean draining, String resourceId) {
  public WorkerRecord {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(resourceId, "resourceId");
  }

  /** A node started by hand. */
  public WorkerRecord(Worker worker, boolean draining) {
    this(worker, draining, "");
  }

  public int id() {
    return worker.id();
  }
}

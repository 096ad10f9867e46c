package dev.tide.meta.store;

import dev.tide.meta.schedule.Worker;
import java.util.Objects;

/** A registered compute node and whether it is draining (its actors are being migrated off). */
public record WorkerRecord(Worker worker, boolean draining) {
  public WorkerRecord {
    Objects.requireNonNull(worker, "worker");
  }

  public int id() {
    return worker.id();
  }
}

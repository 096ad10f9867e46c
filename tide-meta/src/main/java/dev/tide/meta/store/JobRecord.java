package dev.tide.meta.store;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import dev.tide.proto.plan.JobDefinition;
import java.util.Objects;

/** A job as the meta store keeps it: its compiled definition, parallelism intent, committed layout and pause flag. */
public record JobRecord(JobDefinition definition, JobIntent intent, JobLayout layout, boolean paused) {
  public JobRecord {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(layout, "layout");
    if (definition.getName().isBlank()) {
      throw new IllegalArgumentException("job " + definition.getJobId() + " cannot be stored: its name is blank");
    }
  }

  public int jobId() {
    return definition.getJobId();
  }

  public String name() {
    return definition.getName();
  }
}

package dev.tide.meta.store;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.schedule.JobLayout;
import java.util.Objects;

/** The layout (and the intent it was derived from) a reschedule gives an existing job. */
public record LayoutUpdate(int jobId, JobIntent intent, JobLayout layout) {
  public LayoutUpdate {
    Objects.requireNonNull(intent, "intent");
    Objects.requireNonNull(layout, "layout");
  }
}

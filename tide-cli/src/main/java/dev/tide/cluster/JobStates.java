package dev.tide.cluster;

import dev.tide.meta.Meta;
import dev.tide.meta.admin.AdminViews;
import dev.tide.proto.admin.JobSummary;
import dev.tide.proto.plan.JobDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of each job as an operator sees it: {@code finished} once every source is bounded and
 * its committed offsets are past its last event (so the epoch of the last events committed),
 * {@code paused}, or {@code running}.
 */
public final class JobStates {
  public static final String RUNNING = "running";
  public static final String PAUSED = "paused";
  public static final String FINISHED = "finished";

  private JobStates() {}

  /** Every job of {@code meta}, by name, with its state read from {@code views}. */
  public static List<JobSummary> summaries(Meta meta, CommittedViews views) {
    List<JobSummary> out = new ArrayList<>();
    for (JobSummary s : AdminViews.cluster(meta.snapshot()).getJobsList()) {
      JobDefinition def = meta.jobs().get(s.getName());
      out.add(s.toBuilder().setState(state(s.getPaused(), def != null && views.sourcesDone(def))).build());
    }
    return out;
  }

  /** A finished job stays finished when paused: it has nothing left to emit. */
  static String state(boolean paused, boolean sourcesDone) {
    return sourcesDone ? FINISHED : paused ? PAUSED : RUNNING;
  }
}

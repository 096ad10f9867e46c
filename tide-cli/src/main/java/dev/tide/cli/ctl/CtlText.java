package dev.tide.cli.ctl;

import dev.tide.cli.text.TextTable;
import dev.tide.common.hash.VnodeBitmap;
import dev.tide.proto.admin.ActorView;
import dev.tide.proto.admin.ClusterResponse;
import dev.tide.proto.admin.FragmentView;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.JobSummary;
import dev.tide.proto.admin.RescheduleReply;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.WorkerSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The text {@code tide ctl} prints for each answer of meta: compact aligned tables, no color. Pure. */
final class CtlText {
  private static final String INDENT = "  ";

  private CtlText() {}

  static List<String> cluster(ClusterResponse c) {
    List<String> lines = new ArrayList<>();
    int slots = c.getWorkersList().stream().mapToInt(WorkerSummary::getSlots).sum();
    long draining = c.getWorkersList().stream().filter(WorkerSummary::getDraining).count();
    lines.add("workers: " + c.getWorkersCount() + " (" + slots + " slots" + (draining > 0 ? ", " + draining + " draining" : "") + ")");
    List<List<String>> rows = new ArrayList<>();
    for (WorkerSummary w : c.getWorkersList()) {
      rows.add(List.of(String.valueOf(w.getId()), w.getAddress(), String.valueOf(w.getSlots()), String.valueOf(w.getActors()),
          (w.getDraining() ? "draining" : "active") + (w.getMostOfOneFragment() > w.getSlots()
              ? ", oversubscribed (" + w.getMostOfOneFragment() + " actors of one fragment on " + w.getSlots() + " slots)" : "")));
    }
    if (!rows.isEmpty()) {
      lines.addAll(TextTable.render(INDENT, List.of("id", "address", "slots", "actors", "state"), rows));
    }
    lines.add("jobs: " + c.getJobsCount());
    List<List<String>> jobs = new ArrayList<>();
    for (JobSummary j : c.getJobsList()) {
      jobs.add(List.of(j.getName(), String.valueOf(j.getJobId()), j.getIntent(), String.valueOf(j.getVnodeCount()),
          String.valueOf(j.getFragments()), String.valueOf(j.getActors()), state(j)));
    }
    if (!jobs.isEmpty()) {
      lines.addAll(TextTable.render(INDENT, List.of("job", "id", "intent", "vnodes", "fragments", "actors", "state"), jobs));
    }
    return lines;
  }

  private static String state(JobSummary j) {
    String s = j.getPaused() ? "paused" : "running";
    return j.getRescheduling() ? s + ", rescheduling" : s;
  }

  static List<String> fragments(FragmentsResponse r) {
    JobSummary j = r.getJob();
    List<String> lines = new ArrayList<>();
    lines.add("job '" + j.getName() + "' (id " + j.getJobId() + "): intent " + j.getIntent() + ", " + j.getVnodeCount() + " vnodes, "
        + j.getFragments() + " fragments, " + j.getActors() + " actors, " + state(j));
    for (FragmentView f : r.getFragmentsList()) {
      StringBuilder head = new StringBuilder("fragment ").append(f.getFragmentId()).append(": ");
      head.append(switch (f.getKind()) {
        case SOURCE -> "source, " + f.getUnitCount() + " splits";
        case SINGLETON -> "singleton";
        default -> "hash, " + f.getUnitCount() + " vnodes";
      });
      head.append(", ").append(f.getActorsCount()).append(f.getActorsCount() == 1 ? " actor" : " actors");
      if (f.getUpstreamCount() > 0) {
        head.append(", upstream ").append(f.getUpstreamList().stream().map(String::valueOf).collect(Collectors.joining(",")));
      }
      if (f.getEnsembleCount() > 1) {
        head.append(", NO_SHUFFLE ensemble ").append(f.getEnsembleList()).append(" driven by fragment ").append(f.getEnsembleRoot());
      }
      lines.add(head.toString());
      if (f.hasStats()) {
        lines.add(INDENT + stats(f.getStats()));
      }
      boolean source = f.getKind() == dev.tide.proto.admin.FragmentKind.SOURCE;
      List<List<String>> rows = new ArrayList<>();
      for (ActorView a : f.getActorsList()) {
        String units = source ? splits(a, f.getUnitCount()) : a.getVnodes().isEmpty() ? "none" : a.getVnodes();
        rows.add(List.of(String.valueOf(a.getActorId()), String.valueOf(a.getWorkerId()), units));
      }
      lines.addAll(TextTable.render(INDENT, List.of("actor", "worker", source ? "splits" : "vnodes"), rows));
    }
    return lines;
  }

  /** One line of a fragment's load, e.g. {@code "load over 30 s: 12,000 rows/s in, ..."}. */
  static String stats(dev.tide.proto.admin.FragmentStats s) {
    String line = String.format(java.util.Locale.ROOT, "load over %.0f s: %,.0f rows/s in, %,.0f out, busy %.0f%%, backpressure %.0f%%, %s",
        s.getSeconds(), s.getRowsInPerSecond(), s.getRowsOutPerSecond(), 100 * s.getBusy(), 100 * s.getBackpressure(),
        Double.isNaN(s.getTrueRate()) ? "true rate n/a" : String.format(java.util.Locale.ROOT, "%,.0f rows/s per busy actor", s.getTrueRate()));
    if (s.getBacklog() >= 0) {
      line += String.format(java.util.Locale.ROOT, ", backlog %,d rows (%+,.0f/s)", s.getBacklog(), s.getBacklogGrowthPerSecond());
    }
    if (s.getSkipped() > 0) {
      line += String.format(java.util.Locale.ROOT, ", %,d malformed records skipped", s.getSkipped());
    }
    return line;
  }

  /** {@code tide ctl autoscale JOB}: ownership, the last round's view per ensemble, the last decisions. */
  static List<String> autoscale(String job, dev.tide.proto.admin.AutoscaleShowReply r) {
    List<String> lines = new ArrayList<>();
    lines.add("job '" + job + "': intent " + r.getIntent() + (r.getOwned() ? ", owned by the autoscaler" : ", not autoscaled (enable with"
        + " tide ctl autoscale " + job + " --enable)") + (r.getRunning() ? "" : "; the autoscaler is off in meta (autoscaler.enabled=false)"));
    if (!r.getWaiting().isEmpty()) {
      lines.add("waiting: " + r.getWaiting());
    }
    if (r.getEnsemblesCount() > 0) {
      List<List<String>> rows = new ArrayList<>();
      for (dev.tide.proto.admin.AutoscaleEnsemble e : r.getEnsemblesList()) {
        rows.add(List.of(String.valueOf(e.getRoot()), String.valueOf(e.getParallelism()), String.valueOf(e.getWanted()),
            String.format(java.util.Locale.ROOT, "%,.0f", e.getTargetRate()),
            Double.isNaN(e.getUtilization()) ? "n/a" : String.format(java.util.Locale.ROOT, "%.2f", e.getUtilization()), e.getStatus()));
      }
      lines.addAll(TextTable.render("", List.of("fragment", "actors", "wanted", "target rows/s", "utilization", "status"), rows));
    }
    if (r.getDecisionsCount() == 0) {
      lines.add("no decisions yet");
    }
    for (dev.tide.proto.admin.AutoscaleDecision d : r.getDecisionsList()) {
      lines.add(java.time.Instant.ofEpochMilli(d.getAtMs()) + " fragment " + d.getFragment() + ": " + d.getReason() + " [" + d.getOutcome()
          + "]");
    }
    return lines;
  }

  /** A source actor's splits run-length encoded like vnodes, e.g. {@code "0-3,8"}. */
  private static String splits(ActorView a, int splitCount) {
    if (a.getSplitsCount() == 0) {
      return "none";
    }
    int count = Math.max(splitCount, a.getSplitsList().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
    return VnodeBitmap.of(count, a.getSplitsList().stream().mapToInt(Integer::intValue).toArray()).toString();
  }

  /** The diff, then one line saying what happened to it. */
  static List<String> reschedule(String job, RescheduleReply r, boolean dryRun, boolean scale) {
    List<String> lines = new ArrayList<>(r.getDiff().lines().toList());
    String change = r.getActorsBefore() + " -> " + r.getActorsAfter() + " actors, " + r.getMovedVnodes() + " vnodes and "
        + r.getMovedSplits() + " splits move";
    if (dryRun) {
      lines.add("dry run: nothing changed (" + change + " if applied)");
    } else if (r.getApplied()) {
      lines.add("applied: " + change + " at the next checkpoint barrier" + (scale ? "; intent " + r.getIntent() : ""));
    } else {
      lines.add("nothing to do: the layout of job '" + job + "' already matches" + (scale ? "; intent " + r.getIntent() : ""));
    }
    return lines;
  }

  static List<String> status(StatusResponse s) {
    List<List<String>> rows = List.of(
        List.of("committed epoch", String.valueOf(s.getCommittedEpoch())),
        List.of("committed barriers", String.valueOf(s.getCommittedBarriers())),
        List.of("barrier latency", s.getBarrierLatencyMs() + "ms"),
        List.of("in-flight barriers", String.valueOf(s.getInflightBarriers())),
        List.of("workers", String.valueOf(s.getAliveWorkers())),
        List.of("jobs", String.valueOf(s.getJobs())),
        List.of("recoveries", String.valueOf(s.getRecoveries())));
    int width = rows.stream().mapToInt(r -> r.get(0).length()).max().orElse(0);
    List<String> lines = new ArrayList<>();
    for (List<String> r : rows) {
      lines.add(r.get(0) + " ".repeat(width - r.get(0).length() + 2) + r.get(1));
    }
    return lines;
  }
}

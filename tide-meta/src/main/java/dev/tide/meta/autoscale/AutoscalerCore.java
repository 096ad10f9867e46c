package dev.tide.meta.autoscale;

import dev.tide.meta.scale.AutoscaleSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The job autoscaler's decisions: the jobs' shapes and measured load and {@code now} in, rescale
 * actions with their reasons out. No clock, no I/O: a test steps it with a manual clock and the
 * same inputs give the same decisions. It remembers, per job, when its layout last changed and, per
 * ensemble, how long it has wanted fewer actors and whether a scale-up proved ineffective.
 *
 * <p>Per job, in the spirit of DS2 and of the Flink Kubernetes operator's autoscaler:
 * <ol>
 *   <li>A job is looked at only when its intent hands it over, no reschedule of it is in flight, it
 *       is not paused, and its layout has not changed for {@code stabilization + metric-window}: the
 *       window then holds fresh epochs only.
 *   <li>Target rates flow from the sources: a source must produce its arrival rate (rows/s
 *       produced plus the backlog's growth) plus its backlog spread over {@code catch-up}; every
 *       other fragment must read what its upstream fragments must write, each the target rate it
 *       reads times its measured selectivity (rows out per row in).
 *   <li>A fragment's true rate is what one actor reads per second of busy time. Its utilization at
 *       the target rate is {@code target / (parallelism × true rate)}; outside
 *       {@code target-utilization ± band} it wants {@code ceil(target / (true rate × target-utilization))}
 *       actors, within the job's range and the fragment's units (vnodes, splits), rounded up to an
 *       even split of the units when one is close.
 *   <li>A NoShuffle ensemble scales as one, to what its neediest member wants; a singleton never.
 *   <li>Scale-up is immediate, unless the ensemble is more blocked on output than busy (a fragment
 *       downstream is the bottleneck: DS2's rule); scale-down only after the ensemble wanted fewer actors for
 *       {@code scale-down-delay}, to the most it wanted meanwhile.
 *   <li>After a scale-up, the next full window compares the rows/s gained with the gain expected
 *       (proportional to the actors added, at most the target); below {@code effectiveness-threshold}
 *       of it, while the fragment still wants more, scaling it up stops (a hot key, an outside
 *       bottleneck) until the job's autoscaling is set again.
 * </ol>
 *
 * <p>Not thread-safe: one driver thread steps it.
 */
public final class AutoscalerCore {
  /**
   * One fragment of a job as the decision sees it: {@code units} is the most actors it can use
   * (vnodes, or splits of a source); {@code samples} its recent committed epochs, oldest first (the
   * core keeps those of its fresh window).
   */
  public record FragmentInput(int id, boolean source, boolean singleton, int ensembleRoot, List<Integer> upstream, int parallelism,
      int units, List<LoadSample> samples) {
    public FragmentInput {
      upstream = List.copyOf(upstream);
      samples = List.copyOf(samples);
    }
  }

  /**
   * One job: {@code spec} null when the autoscaler does not own it; {@code busy} while a reschedule
   * of it is in flight or it is paused; {@code layoutSignature} changes whenever its layout does.
   * Fragments in topological order (upstream first).
   */
  public record JobInput(String name, AutoscaleSpec spec, boolean busy, String layoutSignature, List<FragmentInput> fragments) {
    public JobInput {
      fragments = List.copyOf(fragments);
    }
  }

  /** Rescale ensemble {@code ensembleRoot} of {@code job} from {@code from} to {@code to} actors, because {@code reason}. */
  public record Action(String job, int ensembleRoot, int from, int to, String reason) {}

  /** What the autoscaler thinks of one ensemble this round, for {@code tide ctl autoscale JOB}. */
  public record EnsembleView(int root, int parallelism, int wanted, double targetRate, double utilization, String status) {}

  /** One round's actions and, per job it owns, its view of every ensemble (or why it did not look). */
  public record Round(List<Action> actions, Map<String, List<EnsembleView>> views, Map<String, String> waiting) {}

  /** What it remembers of one job. */
  private static final class JobMemory {
    String signature;
    long changedAtMs;
    AutoscaleSpec spec;
    final Map<Integer, Long> downSince = new HashMap<>();
    final Map<Integer, Integer> downMost = new HashMap<>();
    final Map<Integer, Check> checks = new HashMap<>();
    final Map<Integer, String> ineffective = new HashMap<>();
  }

  /** A scale-up to verify: the neediest member, its rate before, and the rate the scale-up should bring. */
  private record Check(int fragment, int from, int to, double rateBefore, double expected) {}

  private final AutoscalerOptions.Settings settings;
  private final Map<String, JobMemory> memory = new HashMap<>();

  public AutoscalerCore(AutoscalerOptions.Settings settings) {
    this.settings = settings;
  }

  /** Decides for every job at {@code nowMs}; jobs not listed are forgotten. */
  public Round decide(List<JobInput> jobs, long nowMs) {
    List<Action> actions = new ArrayList<>();
    Map<String, List<EnsembleView>> views = new LinkedHashMap<>();
    Map<String, String> waiting = new LinkedHashMap<>();
    memory.keySet().retainAll(jobs.stream().map(JobInput::name).toList());
    for (JobInput job : jobs) {
      JobMemory m = memory.computeIfAbsent(job.name(), n -> new JobMemory());
      if (!job.layoutSignature().equals(m.signature) || job.busy()) {
        if (!job.layoutSignature().equals(m.signature) && m.signature != null) {
          m.downSince.clear(); // a new shape: demand for fewer actors starts over
          m.downMost.clear();
        }
        m.signature = job.layoutSignature();
        m.changedAtMs = nowMs;
      }
      if (job.spec() == null) {
        m.spec = null;
        continue;
      }
      if (!job.spec().equals(m.spec)) {
        m.spec = job.spec(); // handed over anew: forget what was learnt under other settings
        m.ineffective.clear();
        m.checks.clear();
        m.downSince.clear();
        m.downMost.clear();
      }
      if (job.busy()) {
        waiting.put(job.name(), "a reschedule is in flight or the job is paused");
        continue;
      }
      long ready = m.changedAtMs + settings.stabilizationMs() + settings.metricWindowMs();
      if (nowMs < ready) {
        waiting.put(job.name(), "collecting fresh metrics for " + ((ready - nowMs + 999) / 1000) + " s more (stabilization "
            + settings.stabilizationMs() / 1000 + " s + window " + settings.metricWindowMs() / 1000 + " s after the last layout change)");
        continue;
      }
      List<EnsembleView> jobViews = new ArrayList<>();
      decideJob(job, m, nowMs, actions, jobViews);
      views.put(job.name(), jobViews);
    }
    return new Round(actions, views, waiting);
  }

  /**
   * A member's load over the fresh window and over its newest quarter (null: none measured), its
   * target rate and what it wants.
   */
  private record Need(FragmentInput f, WindowLoad w, WindowLoad recent, double targetRate, double utilization, int wanted) {}

  /** A source's arrival rate: rows produced plus the backlog's growth. */
  private static double arrivals(WindowLoad w) {
    return w == null ? 0 : Math.max(0, w.inRate() + (w.backlog() >= 0 ? w.backlogGrowth() : 0));
  }

  /** The newest {@code 1/parts} of {@code samples} (at least two, when there are). */
  private static List<LoadSample> newest(List<LoadSample> samples, int parts) {
    int n = Math.min(samples.size(), Math.max(2, samples.size() / parts));
    return samples.subList(samples.size() - n, samples.size());
  }

  /** The epochs measured after the stabilization that followed the last layout change, within the window. */
  private List<LoadSample> fresh(List<LoadSample> samples, JobMemory m, long nowMs) {
    long from = Math.max(nowMs - settings.metricWindowMs(), m.changedAtMs + settings.stabilizationMs());
    return samples.stream().filter(s -> s.atMs() > from && s.atMs() <= nowMs).toList();
  }

  private void decideJob(JobInput job, JobMemory m, long nowMs, List<Action> actions, List<EnsembleView> views) {
    double target = job.spec().targetUtilization() > 0 ? job.spec().targetUtilization() : settings.targetUtilization();
    Map<Integer, Double> targetOut = new HashMap<>();
    Map<Integer, List<Need>> byEnsemble = new LinkedHashMap<>();
    boolean steady = true;
    for (FragmentInput f : job.fragments()) {
      List<LoadSample> samples = fresh(f.samples(), m, nowMs);
      WindowLoad w = WindowLoad.of(samples);
      WindowLoad recent = WindowLoad.of(newest(samples, 4));
      double in;
      if (f.source()) {
        // The newest quarter answers a step up at once; the whole window smooths noise.
        double backlog = w == null || w.backlog() < 0 ? 0 : w.backlog();
        in = Math.max(arrivals(w), arrivals(recent)) + backlog * 1000.0 / settings.catchUpMs();
        if (samples.size() >= 4) {
          double older = arrivals(WindowLoad.of(samples.subList(0, samples.size() / 2)));
          double newer = arrivals(WindowLoad.of(samples.subList(samples.size() / 2, samples.size())));
          steady &= Math.abs(older - newer) <= settings.band() * Math.max(older, newer);
        }
      } else {
        in = 0;
        for (int u : f.upstream()) {
          in += targetOut.getOrDefault(u, 0.0);
        }
      }
      targetOut.put(f.id(), in * (w == null ? 1 : w.selectivity()));
      double utilization;
      int wanted;
      if (w == null || Double.isNaN(w.trueRate())) {
        utilization = in > 0 ? Double.NaN : 0; // nothing read: idle, or not measurable yet
        wanted = in > 0 ? f.parallelism() : 1;
      } else {
        utilization = in / (f.parallelism() * w.trueRate());
        wanted = (int) Math.min(Integer.MAX_VALUE, Math.ceil(in / (w.trueRate() * target)));
      }
      wanted = clamp(wanted, job.spec(), f.units());
      byEnsemble.computeIfAbsent(f.ensembleRoot(), r -> new ArrayList<>()).add(new Need(f, w, recent, in, utilization, wanted));
    }
    for (Map.Entry<Integer, List<Need>> e : byEnsemble.entrySet()) {
      int root = e.getKey();
      List<Need> members = e.getValue();
      Need neediest = members.get(0);
      for (Need n : members) {
        if (n.wanted() > neediest.wanted() || (n.wanted() == neediest.wanted() && n.utilization() > neediest.utilization())) {
          neediest = n;
        }
      }
      FragmentInput rootFragment = members.stream().map(Need::f).filter(f -> f.id() == root).findFirst().orElse(neediest.f());
      int p = rootFragment.parallelism();
      String status = decideEnsemble(job, m, nowMs, target, root, p, rootFragment, members, neediest, steady, actions);
      views.add(new EnsembleView(root, p, neediest.wanted(), neediest.targetRate(), neediest.utilization(), status));
    }
  }

  private String decideEnsemble(JobInput job, JobMemory m, long nowMs, double target, int root, int p, FragmentInput rootFragment,
      List<Need> members, Need neediest, boolean steady, List<Action> actions) {
    if (rootFragment.singleton()) {
      return "singleton: never scaled";
    }
    double band = settings.band();
    boolean anyHigh = members.stream().anyMatch(n -> n.utilization() > target + band || Double.isNaN(n.utilization()) && n.targetRate() > 0
        && n.w() != null && n.w().busy() > target + band);
    boolean allLow = members.stream().allMatch(n -> n.utilization() < target - band);
    int wanted = even(neediest.wanted(), rootFragment.units(), Math.min(job.spec().max(), rootFragment.units()));
    Check check = m.checks.remove(root);
    if (check != null) {
      Need again = members.stream().filter(n -> n.f().id() == check.fragment()).findFirst().orElse(neediest);
      double gained = again.recent() == null ? 0 : again.recent().inRate() - check.rateBefore();
      double expectedGain = check.expected() - check.rateBefore();
      if (anyHigh && expectedGain > 0 && gained < settings.effectivenessThreshold() * expectedGain) {
        m.ineffective.put(root, String.format(Locale.ROOT,
            "scale-up %d → %d of fragment %d raised its rows/s from %.0f to %.0f, %.0f%% of the %.0f expected (below %.0f%%): likely a"
                + " hot key or a bottleneck outside it; not scaling it up again until autoscaling is set anew",
            check.from(), check.to(), check.fragment(), check.rateBefore(), check.rateBefore() + gained, 100 * gained / expectedGain,
            check.expected(), 100 * settings.effectivenessThreshold()));
      }
    }
    String why = String.format(Locale.ROOT, "fragment %d needs %.0f rows/s at %.0f rows/s per busy actor: utilization %.2f at %d actors,"
        + " band %.2f..%.2f", neediest.f().id(), neediest.targetRate(),
        neediest.w() == null ? Double.NaN : neediest.w().trueRate(), neediest.utilization(), p, target - band, target + band);
    if (anyHigh && wanted > p) {
      m.downSince.remove(root);
      m.downMost.remove(root);
      String blocked = m.ineffective.get(root);
      if (blocked != null) {
        return "wants " + wanted + " but scale-up stopped: " + blocked;
      }
      WindowLoad nw = neediest.w();
      if (nw != null && nw.blocked() > nw.busy()) {
        return String.format(Locale.ROOT, "wants %d but is backpressured (blocked %.0f%% of the time, busy %.0f%%): a fragment downstream is"
            + " the bottleneck", wanted, 100 * nw.blocked(), 100 * nw.busy());
      }
      actions.add(new Action(job.name(), root, p, wanted, "scale-up " + p + " → " + wanted + ": " + why));
      WindowLoad w = neediest.recent();
      double before = w == null ? 0 : w.inRate();
      m.checks.put(root, new Check(neediest.f().id(), p, wanted, before, Math.min(neediest.targetRate(), before * wanted / p)));
      return "scaling up to " + wanted;
    }
    if (allLow && wanted < p) {
      if (!steady) {
        return "wants " + wanted + "; the sources' rate is still changing: scale-down waits for a steady window";
      }
      long since = m.downSince.computeIfAbsent(root, r -> nowMs);
      int most = m.downMost.merge(root, wanted, Math::max);
      if (nowMs - since < settings.scaleDownDelayMs()) {
        return "wants " + wanted + "; scale-down waits " + ((settings.scaleDownDelayMs() - (nowMs - since) + 999) / 1000) + " s more";
      }
      m.downSince.remove(root);
      m.downMost.remove(root);
      m.ineffective.remove(root);
      actions.add(new Action(job.name(), root, p, most, "scale-down " + p + " → " + most + " (the most wanted over the last "
          + settings.scaleDownDelayMs() / 1000 + " s): " + why));
      return "scaling down to " + most;
    }
    m.downSince.remove(root);
    m.downMost.remove(root);
    return anyHigh ? "at its limit (" + p + " actors)" : "within the band";
  }

  private static int clamp(int wanted, AutoscaleSpec spec, int units) {
    int max = Math.min(spec.max(), Math.max(1, units));
    return Math.max(Math.min(spec.min(), max), Math.min(wanted, max));
  }

  /**
   * The smallest parallelism in {@code [p, min(limit, ⌈1.25p⌉)]} that splits {@code units} evenly, or
   * {@code p} when none does: an even split gives every actor the same share of the keys.
   */
  static int even(int p, int units, int limit) {
    int top = Math.min(limit, (int) Math.ceil(p * 1.25));
    for (int q = p; q <= top; q++) {
      if (units % q == 0) {
        return q;
      }
    }
    return p;
  }
}

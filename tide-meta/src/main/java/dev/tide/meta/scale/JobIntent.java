package dev.tide.meta.scale;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The parallelism intent of a job: one {@link Intent} for the whole job, and overrides for single
 * ensembles keyed by their root fragment (see {@link Ensemble}). Persisted in its textual form
 * {@link #render()}, e.g. {@code "adaptive"} or {@code "adaptive;3=bounded(2);7=4"}, so recovery
 * re-derives the same layout.
 *
 * <p>The job intent is a policy: the planner clamps it to every ensemble's cap. An override is an
 * explicit request: a fixed override above its ensemble's cap is refused (see {@link LayoutPlanner}).
 *
 * <p>{@code autoscale}, when present, hands the job to the autoscaler, which sets fixed overrides
 * within its range ({@code "adaptive;auto=1..8;3=4"}); null when people own the job's shape.
 */
public record JobIntent(Intent job, SortedMap<Integer, Intent> fragmentOverrides, AutoscaleSpec autoscale) {
  static final String FORM = "'<intent>' or '<intent>;<fragment>=<intent>;...', optionally with ';auto=MIN..MAX[@U]', e.g."
      + " 'adaptive;3=bounded(2)', where an intent is " + Intent.FORMS;

  public JobIntent(Intent job, SortedMap<Integer, Intent> fragmentOverrides) {
    this(job, fragmentOverrides, null);
  }

  public JobIntent {
    if (job == null) {
      throw new IllegalArgumentException("job intent is missing");
    }
    TreeMap<Integer, Intent> copy = new TreeMap<>();
    for (Map.Entry<Integer, Intent> e : fragmentOverrides.entrySet()) {
      if (e.getKey() == null || e.getKey() < 0 || e.getValue() == null) {
        throw new IllegalArgumentException("intent override " + e.getKey() + "=" + e.getValue() + " is not valid: expected a fragment id >= 0 and an intent");
      }
      copy.put(e.getKey(), e.getValue());
    }
    fragmentOverrides = Collections.unmodifiableSortedMap(copy);
  }

  /** Every ensemble on all slots of the schedulable workers. */
  public static JobIntent adaptive() {
    return of(Intent.adaptive());
  }

  public static JobIntent fixed(int parallelism) {
    return of(Intent.fixed(parallelism));
  }

  public static JobIntent of(Intent job) {
    return new JobIntent(job, new TreeMap<>());
  }

  /** The intent of the ensemble rooted at {@code rootFragmentId}. */
  public Intent intentFor(int rootFragmentId) {
    return fragmentOverrides.getOrDefault(rootFragmentId, job);
  }

  public JobIntent withJob(Intent newJob) {
    return new JobIntent(newJob, fragmentOverrides, autoscale);
  }

  public JobIntent withOverride(int rootFragmentId, Intent intent) {
    TreeMap<Integer, Intent> o = new TreeMap<>(fragmentOverrides);
    o.put(rootFragmentId, intent);
    return new JobIntent(job, o, autoscale);
  }

  public JobIntent withoutOverride(int rootFragmentId) {
    TreeMap<Integer, Intent> o = new TreeMap<>(fragmentOverrides);
    o.remove(rootFragmentId);
    return new JobIntent(job, o, autoscale);
  }

  /** The same intent with the autoscaler owning the job ({@code spec}) or not (null). */
  public JobIntent withAutoscale(AutoscaleSpec spec) {
    return new JobIntent(job, fragmentOverrides, spec);
  }

  /** {@code "<job>[;auto=..];<fragment>=<intent>;..."}, overrides in fragment order; the inverse of {@link #parse}. */
  public String render() {
    StringBuilder sb = new StringBuilder(job.render());
    if (autoscale != null) {
      sb.append(';').append(autoscale.render());
    }
    fragmentOverrides.forEach((f, i) -> sb.append(';').append(f).append('=').append(i.render()));
    return sb.toString();
  }

  /** Parses {@link #render()}'s form; spaces are allowed around the separators. */
  public static JobIntent parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("job intent is empty: expected " + FORM);
    }
    String[] parts = text.split(";", -1);
    Intent job = parsePart(text, parts[0]);
    TreeMap<Integer, Intent> overrides = new TreeMap<>();
    AutoscaleSpec auto = null;
    for (int i = 1; i < parts.length; i++) {
      String p = parts[i];
      if (p.strip().toLowerCase(java.util.Locale.ROOT).startsWith("auto")) {
        if (auto != null) {
          throw new IllegalArgumentException("job intent '" + text + "' is not valid: it sets auto twice");
        }
        try {
          auto = AutoscaleSpec.parse(p);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("job intent '" + text + "' is not valid: " + e.getMessage(), e);
        }
        continue;
      }
      int eq = p.indexOf('=');
      if (eq < 0 || !p.substring(0, eq).strip().matches("\\d{1,9}")) {
        throw new IllegalArgumentException("job intent '" + text + "' is not valid: override '" + p.strip()
            + "' is not of the form <fragment>=<intent>; expected " + FORM);
      }
      int f = Integer.parseInt(p.substring(0, eq).strip());
      if (overrides.put(f, parsePart(text, p.substring(eq + 1))) != null) {
        throw new IllegalArgumentException("job intent '" + text + "' is not valid: fragment " + f + " is overridden twice");
      }
    }
    return new JobIntent(job, overrides, auto);
  }

  private static Intent parsePart(String text, String part) {
    try {
      return Intent.parse(part);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("job intent '" + text + "' is not valid: " + e.getMessage(), e);
    }
  }
}

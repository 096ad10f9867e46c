package dev.tide.meta.autoscale;

import dev.tide.common.config.Config;
import dev.tide.common.time.Clock;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.Meta;
import dev.tide.meta.store.MetaStore;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.admin.AdminViews;
import dev.tide.meta.scale.Intent;
import dev.tide.proto.admin.FragmentKind;
import dev.tide.proto.admin.FragmentView;
import dev.tide.proto.admin.FragmentsResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The autoscaler's driver: every {@code autoscaler.interval} it reads meta's snapshot and load
 * signals, steps the {@link AutoscalerCore}, and submits each action through
 * {@link Meta#reschedule} — the path a person's {@code tide ctl scale --fragment} takes — logging
 * it with its reason (also in meta's event log, the dashboard's timeline) and keeping the last
 * {@value #KEPT} decisions per job in the meta store (scope {@code job:NAME}), so that they survive a
 * meta restart; those older than the job (a dropped job of the same name) are not shown.
 */
public final class Autoscaler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Autoscaler.class);
  static final int KEPT = 20;

  /** A decision as taken: when, what, and whether meta applied it (else why not). */
  public record Decision(long atMs, String job, int ensembleRoot, int from, int to, String reason, String outcome) {
    /** The stored text: root, from, to, reason and outcome, tab-separated (reasons hold no tab). */
    String text() {
      return ensembleRoot + "\t" + from + "\t" + to + "\t" + reason.replace('\t', ' ') + "\t" + outcome.replace('\t', ' ');
    }

    static Decision parse(String job, long atMs, String text) {
      String[] f = text.split("\t", 5);
      if (f.length < 5) {
        return new Decision(atMs, job, -1, 0, 0, text, "");
      }
      return new Decision(atMs, job, Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], f[4]);
    }
  }

  private final Meta meta;
  private final Clock clock;
  private final AutoscalerCore core;
  private final long intervalMs;
  private final boolean enabled;
  private final MetaStore store;
  private volatile AutoscalerCore.Round lastRound = new AutoscalerCore.Round(List.of(), Map.of(), Map.of());
  private volatile Consumer<Decision> listener = d -> {};
  private ScheduledExecutorService timer;

  public Autoscaler(Meta meta, MetaStore store, Config config, Clock clock) {
    this.meta = meta;
    this.store = store;
    this.clock = clock;
    this.core = new AutoscalerCore(AutoscalerOptions.Settings.of(config));
    this.intervalMs = config.get(AutoscalerOptions.INTERVAL).toMillis();
    this.enabled = config.get(AutoscalerOptions.ENABLED);
  }

  /** Starts the periodic rounds (nothing when {@code autoscaler.enabled} is false). */
  public synchronized void start() {
    if (!enabled || timer != null) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "autoscaler");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(() -> {
      try {
        round();
      } catch (RuntimeException e) {
        LOG.warn("autoscaler round failed: {}", e.toString());
      }
    }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  public boolean enabled() {
    return enabled;
  }

  /** Called with every decision (the playground prints them). */
  public void onDecision(Consumer<Decision> l) {
    listener = l;
  }

  /** One round: decide, then submit each action; returns the decisions taken. */
  public synchronized List<Decision> round() {
    long now = clock.nowMillis();
    ClusterSnapshot snap = meta.snapshot();
    long committed = meta.stats().committedEpoch();
    List<AutoscalerCore.JobInput> jobs = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (ClusterSnapshot.JobView j : snap.jobs().values()) {
      ids.add(j.definition().getJobId());
      jobs.add(input(j, committed));
    }
    meta.loads().retainJobs(ids);
    AutoscalerCore.Round round = core.decide(jobs, now);
    lastRound = round;
    List<Decision> taken = new ArrayList<>();
    for (AutoscalerCore.Action a : round.actions()) {
      String outcome;
      try {
        boolean applied = meta.reschedule(RescheduleRequest.scaleFragment(a.job(), a.ensembleRoot(), new Intent.Fixed(a.to()), false))
            .applied();
        outcome = applied ? "applied" : "changed nothing";
      } catch (RuntimeException e) {
        outcome = "refused: " + e.getMessage();
      }
      Decision d = new Decision(now, a.job(), a.ensembleRoot(), a.from(), a.to(), a.reason(), outcome);
      LOG.info("autoscaler: job '{}' fragment {}: {} ({})", a.job(), a.ensembleRoot(), a.reason(), outcome);
      meta.events().record(now, "autoscaler", a.job(), "fragment " + a.ensembleRoot() + ": " + a.reason() + " (" + outcome + ")");
      try {
        store.appendDecision("job:" + a.job(), now, d.text(), KEPT);
      } catch (RuntimeException e) {
        LOG.warn("autoscaler: the decision on job '{}' was not stored: {}", a.job(), e.getMessage());
      }
      taken.add(d);
      listener.accept(d);
    }
    return taken;
  }

  /** The job's last decisions (since it was created), oldest first. */
  public List<Decision> decisions(String job) {
    ClusterSnapshot.JobView j = meta.snapshot().jobs().get(job);
    long since = j == null ? Long.MIN_VALUE : j.definition().getCreatedMs();
    return store.decisions("job:" + job).stream().filter(r -> r.atMs() >= since).map(r -> Decision.parse(job, r.atMs(), r.decision()))
        .toList();
  }

  /** The last round's view of each job it owns and the jobs it waits on. */
  public AutoscalerCore.Round lastRound() {
    return lastRound;
  }

  /** The core's input for one job: fragments in topological order with their committed epochs' loads. */
  AutoscalerCore.JobInput input(ClusterSnapshot.JobView j, long committedEpoch) {
    FragmentsResponse fr = AdminViews.fragments(j);
    int jobId = j.definition().getJobId();
    Map<Integer, FragmentView> byId = new LinkedHashMap<>();
    fr.getFragmentsList().forEach(f -> byId.put(f.getFragmentId(), f));
    List<AutoscalerCore.FragmentInput> fragments = new ArrayList<>();
    StringBuilder signature = new StringBuilder();
    for (FragmentView f : topological(byId)) {
      fragments.add(new AutoscalerCore.FragmentInput(f.getFragmentId(), f.getKind() == FragmentKind.SOURCE,
          f.getKind() == FragmentKind.SINGLETON, f.getEnsembleRoot(), f.getUpstreamList(), f.getActorsCount(), f.getUnitCount(),
          meta.loads().samples(jobId, f.getFragmentId(), committedEpoch)));
      signature.append(f.getFragmentId()).append(':');
      f.getActorsList().forEach(a -> signature.append(a.getActorId()).append('@').append(a.getWorkerId()).append(','));
    }
    return new AutoscalerCore.JobInput(j.definition().getName(), j.intent().autoscale(), j.rescheduling() || j.paused(),
        signature.toString(), fragments);
  }

  /** Upstream fragments first (Kahn's order, lowest id first among the ready). */
  private static List<FragmentView> topological(Map<Integer, FragmentView> byId) {
    List<FragmentView> out = new ArrayList<>();
    Set<Integer> done = new HashSet<>();
    while (out.size() < byId.size()) {
      FragmentView next = null;
      for (FragmentView f : byId.values()) {
        if (!done.contains(f.getFragmentId()) && done.containsAll(f.getUpstreamList().stream().filter(byId::containsKey).toList())) {
          next = f;
          break;
        }
      }
      if (next == null) {
        byId.values().stream().filter(f -> !done.contains(f.getFragmentId())).forEach(out::add); // a cycle: keep id order
        break;
      }
      out.add(next);
      done.add(next.getFragmentId());
    }
    return out;
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}

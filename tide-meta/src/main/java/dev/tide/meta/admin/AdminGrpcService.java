package dev.tide.meta.admin;

import dev.tide.meta.ClusterSnapshot;
import dev.tide.meta.Meta;
import dev.tide.meta.RescheduleRequest;
import dev.tide.meta.RescheduleResult;
import dev.tide.meta.autoscale.Autoscaler;
import dev.tide.meta.autoscale.AutoscalerCore;
import dev.tide.meta.scale.AutoscaleSpec;
import dev.tide.meta.scale.Intent;
import dev.tide.proto.admin.AutoscaleDecision;
import dev.tide.proto.admin.AutoscaleEnsemble;
import dev.tide.proto.admin.AutoscaleReply;
import dev.tide.proto.admin.AutoscaleRequest;
import dev.tide.proto.admin.AutoscaleShowReply;
import dev.tide.meta.scale.LayoutDiff;
import dev.tide.meta.scale.ReschedulePlan;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.ClusterRequest;
import dev.tide.proto.admin.ClusterResponse;
import dev.tide.proto.admin.FragmentsRequest;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.PauseResponse;
import dev.tide.proto.admin.RescheduleJobRequest;
import dev.tide.proto.admin.RescheduleReply;
import dev.tide.proto.admin.ScaleJobRequest;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.StatusResponse;
import dev.tide.proto.admin.WorkerAddRequest;
import dev.tide.proto.admin.WorkerAddResponse;
import dev.tide.proto.admin.WorkerDrainRequest;
import dev.tide.proto.admin.WorkerDrainResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API ({@code tide ctl}) over {@link Meta}. Requests go through the same calls as a
 * scaling policy's ({@link Meta#reschedule}, {@link Meta#setPaused}, {@link Meta#drainWorker}), so
 * meta's validation and its one-reschedule-at-a-time rule apply to people too. Bad input changes
 * nothing: everything is validated before meta applies anything.
 *
 * <p>Errors: {@link IllegalArgumentException} (including {@code RescheduleException}) becomes
 * INVALID_ARGUMENT, {@link IllegalStateException} FAILED_PRECONDITION, a missing
 * {@link WorkerLauncher} UNIMPLEMENTED; the description is the exception's message, one line.
 *
 * <p>Thread-safety: handlers run on gRPC threads; {@link Meta} serializes them on its driver.
 */
public final class AdminGrpcService extends AdminServiceGrpc.AdminServiceImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(AdminGrpcService.class);
  /** Most slots a worker started through the API may offer. */
  public static final int MAX_SLOTS = 256;

  private final Meta meta;
  private final WorkerLauncher launcher;

  /**
   * @param launcher starts compute nodes for {@code WorkerAdd}; null when this deployment cannot
   */
  public AdminGrpcService(Meta meta, WorkerLauncher launcher) {
    this.meta = meta;
    this.launcher = launcher;
  }

  @Override
  public void cluster(ClusterRequest req, StreamObserver<ClusterResponse> out) {
    answer(out, "cluster", () -> AdminViews.cluster(meta.snapshot()));
  }

  @Override
  public void fragments(FragmentsRequest req, StreamObserver<FragmentsResponse> out) {
    answer(out, "fragments", () -> {
      FragmentsResponse r = AdminViews.fragments(job(meta.snapshot(), req.getJob()));
      return req.getStats() ? AdminViews.withStats(r, meta, req.getWindowMs() == 0 ? 30_000 : req.getWindowMs()) : r;
    });
  }

  @Override
  public void autoscale(AutoscaleRequest req, StreamObserver<AutoscaleReply> out) {
    answer(out, "autoscale", () -> {
      ClusterSnapshot.JobView j = job(meta.snapshot(), req.getJob());
      AutoscaleSpec spec = null;
      if (req.getEnable()) {
        int vnodes = j.definition().getVnodeCount();
        int min = req.getMin() == 0 ? 1 : req.getMin();
        int max = req.getMax() == 0 ? vnodes : req.getMax();
        if (max > vnodes) {
          throw new IllegalArgumentException("autoscale of job '" + req.getJob() + "' refused: max " + max + " exceeds the job's vnode count "
              + vnodes + "; ask for at most " + vnodes);
        }
        if (min > max) {
          throw new IllegalArgumentException("autoscale of job '" + req.getJob() + "' refused: min " + min + " is above max " + max
              + "; give min <= max");
        }
        spec = new AutoscaleSpec(min, max, req.getTargetUtilization());
      }
      RescheduleResult r = meta.reschedule(RescheduleRequest.autoscale(req.getJob(), spec));
      return AutoscaleReply.newBuilder().setIntent(r.intent().render()).build();
    });
  }

  @Override
  public void autoscaleShow(JobRequest req, StreamObserver<AutoscaleShowReply> out) {
    answer(out, "autoscale show", () -> {
      ClusterSnapshot.JobView j = job(meta.snapshot(), req.getJob());
      Autoscaler a = meta.autoscaler();
      AutoscalerCore.Round round = a.lastRound();
      AutoscaleShowReply.Builder r = AutoscaleShowReply.newBuilder().setIntent(j.intent().render()).setOwned(j.intent().autoscale() != null)
          .setRunning(a.enabled()).setWaiting(round.waiting().getOrDefault(req.getJob(), ""));
      for (AutoscalerCore.EnsembleView v : round.views().getOrDefault(req.getJob(), java.util.List.of())) {
        r.addEnsembles(AutoscaleEnsemble.newBuilder().setRoot(v.root()).setParallelism(v.parallelism()).setWanted(v.wanted())
            .setTargetRate(v.targetRate()).setUtilization(v.utilization()).setStatus(v.status()));
      }
      for (Autoscaler.Decision d : a.decisions(req.getJob())) {
        r.addDecisions(AutoscaleDecision.newBuilder().setAtMs(d.atMs()).setFragment(d.ensembleRoot()).setFrom(d.from()).setTo(d.to())
            .setReason(d.reason()).setOutcome(d.outcome()));
      }
      return r.build();
    });
  }

  @Override
  public void reschedule(RescheduleJobRequest req, StreamObserver<RescheduleReply> out) {
    answer(out, "reschedule", () -> reply(meta.reschedule(RescheduleRequest.plan(req.getJob(), ReschedulePlan.parse(req.getPlan()),
        req.getDryRun()))));
  }

  @Override
  public void scale(ScaleJobRequest req, StreamObserver<RescheduleReply> out) {
    answer(out, "scale", () -> {
      String what = req.hasFragment() ? "scale of fragment " + req.getFragment() + " of job '" + req.getJob() + "'"
          : "scale of job '" + req.getJob() + "'";
      Intent intent;
      try {
        intent = Intent.parse(req.getParallelism());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(what + " refused: " + e.getMessage(), e);
      }
      return reply(meta.reschedule(req.hasFragment() ? RescheduleRequest.scaleFragment(req.getJob(), req.getFragment(), intent, req.getDryRun())
          : RescheduleRequest.scaleJob(req.getJob(), intent, req.getDryRun())));
    });
  }

  private static RescheduleReply reply(RescheduleResult r) {
    LayoutDiff d = r.diff();
    return RescheduleReply.newBuilder().setDiff(d.render()).setApplied(r.applied()).setActorsBefore(r.actorsBefore())
        .setActorsAfter(r.actorsAfter()).setMovedVnodes(d.movedVnodes()).setMovedSplits(d.movedSplits())
        .setIntent(r.intent().render()).build();
  }

  @Override
  public void pause(JobRequest req, StreamObserver<PauseResponse> out) {
    answer(out, "pause", () -> setPaused(req.getJob(), true));
  }

  @Override
  public void resume(JobRequest req, StreamObserver<PauseResponse> out) {
    answer(out, "resume", () -> setPaused(req.getJob(), false));
  }

  private PauseResponse setPaused(String job, boolean paused) {
    return PauseResponse.newBuilder().setChanged(meta.setPaused(job, paused)).build();
  }

  @Override
  public void workerAdd(WorkerAddRequest req, StreamObserver<WorkerAddResponse> out) {
    answer(out, "worker add", () -> {
      if (launcher == null) {
        throw Status.UNIMPLEMENTED.withDescription("worker add is not available: this meta has no compute provider to start"
            + " nodes with; start one yourself (tide compute --meta <this meta's gRPC address> --data-dir DIR --slots N) and it"
            + " registers and takes actors of adaptive jobs").asRuntimeException();
      }
      int slots = req.getSlots() == 0 ? launcher.defaultSlots() : req.getSlots();
      if (slots < 1 || slots > MAX_SLOTS) {
        throw new IllegalArgumentException("worker add refused: slots " + Integer.toUnsignedString(req.getSlots())
            + " must be between 1 and " + MAX_SLOTS);
      }
      int id = launcher.launch(slots);
      LOG.info("worker {} started on request with {} slots", id, slots);
      return WorkerAddResponse.newBuilder().setWorkerId(id).setSlots(slots).build();
    });
  }

  @Override
  public void workerDrain(WorkerDrainRequest req, StreamObserver<WorkerDrainResponse> out) {
    answer(out, "worker drain", () -> {
      int id = req.getWorkerId();
      ClusterSnapshot s = meta.snapshot();
      int actors = s.jobs().values().stream().mapToInt(j -> j.layout().actorsPerWorker().getOrDefault(id, 0)).sum();
      meta.drainWorker(id);
      return WorkerDrainResponse.newBuilder().setActors(actors).build();
    });
  }

  @Override
  public void status(StatusRequest req, StreamObserver<StatusResponse> out) {
    answer(out, "status", () -> AdminViews.status(meta, meta.clock().nowMillis()));
  }

  static ClusterSnapshot.JobView job(ClusterSnapshot s, String name) {
    ClusterSnapshot.JobView j = s.jobs().get(name);
    if (j == null) {
      throw new IllegalArgumentException("unknown job '" + name + "'; jobs: " + s.jobs().keySet());
    }
    return j;
  }

  /** Runs {@code work} and sends its reply, or the status its exception maps to. */
  private static <T> void answer(StreamObserver<T> out, String op, Supplier<T> work) {
    T reply;
    try {
      reply = work.get();
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    } catch (IllegalArgumentException e) {
      out.onError(status(Status.INVALID_ARGUMENT, op, e));
      return;
    } catch (IllegalStateException e) {
      out.onError(status(Status.FAILED_PRECONDITION, op, e));
      return;
    } catch (RuntimeException e) {
      LOG.warn("admin request '{}' failed", op, e);
      out.onError(Status.INTERNAL.withDescription(op + " failed: " + e).asRuntimeException());
      return;
    }
    out.onNext(reply);
    out.onCompleted();
  }

  private static StatusRuntimeException status(Status status, String op, RuntimeException e) {
    String message = e.getMessage() == null ? op + " failed: " + e.getClass().getSimpleName() : e.getMessage();
    return status.withDescription(message).asRuntimeException();
  }
}

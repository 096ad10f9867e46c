package dev.tide.meta.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tide.common.hash.VnodeBitmap;
import dev.tide.meta.ClusterSnapshot;
import dev.tide.proto.admin.ActorView;
import dev.tide.proto.admin.AdminServiceGrpc;
import dev.tide.proto.admin.ClusterRequest;
import dev.tide.proto.admin.ClusterResponse;
import dev.tide.proto.admin.FragmentKind;
import dev.tide.proto.admin.FragmentView;
import dev.tide.proto.admin.FragmentsRequest;
import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.JobRequest;
import dev.tide.proto.admin.RescheduleJobRequest;
import dev.tide.proto.admin.RescheduleReply;
import dev.tide.proto.admin.ScaleJobRequest;
import dev.tide.proto.admin.StatusRequest;
import dev.tide.proto.admin.WorkerAddRequest;
import dev.tide.proto.admin.WorkerAddResponse;
import dev.tide.proto.admin.WorkerDrainRequest;
import dev.tide.proto.admin.WorkerSummary;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admin API over a meta with fake compute nodes: views of the cluster and of fragments, dry runs
 * that change nothing, applied requests, and every kind of bad input refused with the status its
 * exception maps to, a message naming the problem, and the job's layout and intent unchanged.
 */
class AdminGrpcServiceTest {
  private static final AtomicInteger SERVERS = new AtomicInteger();

  private FakeWorkers cluster;
  private final List<Integer> launched = new ArrayList<>();
  private Server server;
  private ManagedChannel channel;
  private AdminServiceGrpc.AdminServiceBlockingStub admin;

  @BeforeEach
  void start() throws IOException {
    cluster = new FakeWorkers();
    cluster.add(2);
    cluster.add(2);
    cluster.meta.createJob(FakeWorkers.job(1, "q", 256, 16));
    admin = serve(slots -> {
      launched.add(slots);
      return cluster.add(slots);
    });
  }

  private AdminServiceGrpc.AdminServiceBlockingStub serve(WorkerLauncher launcher) throws IOException {
    close();
    String name = "admin-" + SERVERS.incrementAndGet();
    server = InProcessServerBuilder.forName(name).addService(new AdminGrpcService(cluster.meta, launcher)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    return AdminServiceGrpc.newBlockingStub(channel);
  }

  private void close() {
    if (channel != null) {
      channel.shutdownNow();
      server.shutdownNow();
    }
  }

  @AfterEach
  void stop() {
    close();
    cluster.close();
  }

  private ClusterSnapshot.JobView job() {
    return cluster.meta.snapshot().jobs().get("q");
  }

  @Test
  void clusterListsWorkersWithTheirActorsAndTheJob() {
    ClusterResponse c = admin.cluster(ClusterRequest.getDefaultInstance());

    assertThat(c.getWorkersList()).extracting(WorkerSummary::getId).containsExactly(1, 2);
    assertThat(c.getWorkersList()).allSatisfy(w -> {
      assertThat(w.getSlots()).isEqualTo(2);
      assertThat(w.getDraining()).isFalse();
    });
    int actors = job().layout().allActors().size();
    assertThat(c.getWorkersList().stream().mapToInt(WorkerSummary::getActors).sum()).isEqualTo(actors);
    assertThat(c.getJobsCount()).isEqualTo(1);
    assertThat(c.getJobs(0).getName()).isEqualTo("q");
    assertThat(c.getJobs(0).getIntent()).isEqualTo("adaptive");
    assertThat(c.getJobs(0).getVnodeCount()).isEqualTo(256);
    assertThat(c.getJobs(0).getFragments()).isEqualTo(4);
    assertThat(c.getJobs(0).getActors()).isEqualTo(actors);
  }

  @Test
  void aFragmentWithMoreActorsThanTheClustersSlotsShowsItsWorkersOversubscribed() {
    assertThat(admin.cluster(ClusterRequest.getDefaultInstance()).getWorkersList())
        .allSatisfy(w -> assertThat(w.getMostOfOneFragment()).isLessThanOrEqualTo(w.getSlots()));
    admin.scale(dev.tide.proto.admin.ScaleJobRequest.newBuilder().setJob("q").setParallelism("6").build());
    assertThat(admin.cluster(ClusterRequest.getDefaultInstance()).getWorkersList())
        .allSatisfy(w -> assertThat(w.getMostOfOneFragment()).isEqualTo(3).isGreaterThan(w.getSlots()));
  }

  @Test
  void fragmentsShowKindsEnsemblesAndVnodeRangesCoveringEveryVnodeOnce() {
    FragmentsResponse r = admin.fragments(FragmentsRequest.newBuilder().setJob("q").build());

    assertThat(r.getFragmentsList()).extracting(FragmentView::getKind)
        .containsExactly(FragmentKind.SOURCE, FragmentKind.HASH, FragmentKind.HASH, FragmentKind.SINGLETON);
    FragmentView source = r.getFragments(FakeWorkers.SOURCE);
    assertThat(source.getUnitCount()).isEqualTo(16);
    assertThat(source.getActorsList().stream().mapToInt(ActorView::getSplitsCount).sum()).isEqualTo(16);
    FragmentView mirror = r.getFragments(FakeWorkers.MIRROR);
    assertThat(mirror.getEnsembleList()).containsExactly(FakeWorkers.AGG, FakeWorkers.MIRROR);
    assertThat(mirror.getEnsembleRoot()).isEqualTo(FakeWorkers.AGG);
    assertThat(mirror.getUpstreamList()).containsExactly(FakeWorkers.AGG);
    FragmentView agg = r.getFragments(FakeWorkers.AGG);
    assertThat(agg.getActorsCount()).isEqualTo(4);
    BitSet covered = new BitSet();
    for (ActorView a : agg.getActorsList()) {
      assertThat(a.getVnodes()).matches("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*");
      BitSet mine = VnodeBitmap.parse(256, a.getVnodes()).toBitSet();
      assertThat(mine.intersects(covered)).as("vnodes owned twice").isFalse();
      covered.or(mine);
    }
    assertThat(covered.cardinality()).isEqualTo(256);
    assertThat(r.getFragments(FakeWorkers.SINGLE).getUnitCount()).isEqualTo(1);
  }

  @Test
  void dryRunsReturnTheDiffAndChangeNothing() {
    ClusterSnapshot.JobView before = job();
    int worker = before.layout().actors(FakeWorkers.AGG).get(0).workerId();
    int other = worker == 1 ? 2 : 1;

    RescheduleReply plan = admin.reschedule(RescheduleJobRequest.newBuilder().setJob("q")
        .setPlan(FakeWorkers.AGG + ":[" + worker + ":-1," + other + ":+1]").setDryRun(true).build());
    RescheduleReply scale = admin.scale(ScaleJobRequest.newBuilder().setJob("q").setParallelism("2").setDryRun(true).build());

    assertThat(plan.getApplied()).isFalse();
    assertThat(plan.getDiff()).contains("fragment " + FakeWorkers.AGG, "+ actor", "- actor");
    assertThat(plan.getActorsAfter()).isEqualTo(plan.getActorsBefore());
    assertThat(plan.getMovedVnodes()).isPositive();
    assertThat(scale.getApplied()).isFalse();
    assertThat(scale.getActorsBefore()).isEqualTo(before.layout().allActors().size());
    assertThat(scale.getActorsAfter()).as("source, aggregation and its mirror at 2, the singleton at 1").isEqualTo(2 + 2 + 2 + 1);
    assertThat(scale.getIntent()).isEqualTo("adaptive");
    assertThat(job().layout()).isEqualTo(before.layout());
    assertThat(job().intent()).isEqualTo(before.intent());
    assertThat(job().rescheduling()).isFalse();
  }

  @Test
  void scaleAppliesTheIntentKeepingOverrides() {
    RescheduleReply r = admin.scale(ScaleJobRequest.newBuilder().setJob("q").setParallelism("bounded(3)").build());

    assertThat(r.getApplied()).isTrue();
    assertThat(r.getIntent()).isEqualTo("bounded(3)");
    assertThat(job().intent().render()).isEqualTo("bounded(3)");

    // An override of one ensemble, by its root; the job's intent stays.
    assertThat(admin.scale(ScaleJobRequest.newBuilder().setJob("q").setFragment(FakeWorkers.AGG).setParallelism("2").setDryRun(true)
        .build()).getIntent()).isEqualTo("bounded(3)");
  }

  @Test
  void pauseAndResumeReportWhetherTheyChangedAnything() {
    JobRequest q = JobRequest.newBuilder().setJob("q").build();

    assertThat(admin.pause(q).getChanged()).isTrue();
    assertThat(job().paused()).isTrue();
    assertThat(admin.pause(q).getChanged()).isFalse();
    assertThat(admin.resume(q).getChanged()).isTrue();
    assertThat(job().paused()).isFalse();
    assertThat(admin.resume(q).getChanged()).isFalse();
  }

  @Test
  void workerAddLaunchesANodeWithTheDefaultOrGivenSlots() {
    WorkerAddResponse def = admin.workerAdd(WorkerAddRequest.getDefaultInstance());
    WorkerAddResponse three = admin.workerAdd(WorkerAddRequest.newBuilder().setSlots(3).build());

    assertThat(launched).containsExactly(1, 3);
    assertThat(def.getWorkerId()).isEqualTo(3);
    assertThat(three.getWorkerId()).isEqualTo(4);
    assertThat(three.getSlots()).isEqualTo(3);
    assertThat(admin.cluster(ClusterRequest.getDefaultInstance()).getWorkersList()).extracting(WorkerSummary::getId)
        .containsExactly(1, 2, 3, 4);
  }

  @Test
  void workerAddWithoutALauncherIsUnimplemented() throws IOException {
    AdminServiceGrpc.AdminServiceBlockingStub noLauncher = serve(null);

    StatusRuntimeException e = refused(() -> noLauncher.workerAdd(WorkerAddRequest.getDefaultInstance()));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(e.getStatus().getDescription()).contains("worker add is not available");
  }

  @Test
  void workerDrainReportsTheActorsThatMigrateOff() {
    cluster.add(2);
    int onTwo = job().layout().actorsPerWorker().get(2);

    assertThat(admin.workerDrain(WorkerDrainRequest.newBuilder().setWorkerId(2).build()).getActors()).isEqualTo(onTwo);

    // Draining, or already drained and deregistered: the fake nodes commit barriers at once.
    ClusterSnapshot s = cluster.meta.snapshot();
    assertThat(s.draining().contains(2) || s.workers().stream().noneMatch(w -> w.id() == 2)).isTrue();
  }

  private static StatusRuntimeException refused(Runnable call) {
    return catchThrowableOfType(StatusRuntimeException.class, call::run);
  }

  /** Runs a bad request; asserts its status, that the message names the problem, and that nothing changed. */
  private void assertRefused(Status.Code code, String named, Consumer<AdminServiceGrpc.AdminServiceBlockingStub> call) {
    ClusterSnapshot.JobView before = job();
    int workers = cluster.meta.snapshot().workers().size();

    StatusRuntimeException e = refused(() -> call.accept(admin));

    assertThat(e).as("refused").isNotNull();
    assertThat(e.getStatus().getCode()).isEqualTo(code);
    assertThat(e.getStatus().getDescription()).contains(named).doesNotContain("\n");
    assertThat(job().layout()).isEqualTo(before.layout());
    assertThat(job().intent()).isEqualTo(before.intent());
    assertThat(job().paused()).isEqualTo(before.paused());
    assertThat(job().rescheduling()).isFalse();
    assertThat(cluster.meta.snapshot().workers()).hasSize(workers);
    assertThat(cluster.meta.snapshot().draining()).isEmpty();
  }

  private static RescheduleJobRequest plan(String job, String plan) {
    return RescheduleJobRequest.newBuilder().setJob(job).setPlan(plan).build();
  }

  private static ScaleJobRequest scale(String job, String parallelism) {
    return ScaleJobRequest.newBuilder().setJob(job).setParallelism(parallelism).build();
  }

  @Test
  void badInputIsRefusedAsInvalidArgumentAndChangesNothing() {
    Status.Code invalid = Status.Code.INVALID_ARGUMENT;
    assertRefused(invalid, "unknown job 'nope'", a -> a.fragments(FragmentsRequest.newBuilder().setJob("nope").build()));
    assertRefused(invalid, "unknown job 'nope'", a -> a.scale(scale("nope", "2")));
    assertRefused(invalid, "unknown job 'nope'", a -> a.reschedule(plan("nope", "1:[1:+1]")));
    assertRefused(invalid, "unknown job 'nope'", a -> a.pause(JobRequest.newBuilder().setJob("nope").build()));
    assertRefused(invalid, "parallelism '0' is not valid", a -> a.scale(scale("q", "0")));
    assertRefused(invalid, "parallelism 'lots' is not valid", a -> a.scale(scale("q", "lots")));
    assertRefused(invalid, "parallelism 257 exceeds the job's vnode count 256", a -> a.scale(scale("q", "257")));
    assertRefused(invalid, "ratio", a -> a.scale(scale("q", "ratio(1.5)")));
    assertRefused(invalid, "fragment 9 is not a fragment", a -> a.reschedule(plan("q", "9:[1:+1]")));
    assertRefused(invalid, "worker 9 is unknown", a -> a.reschedule(plan("q", FakeWorkers.AGG + ":[9:+1]")));
    assertRefused(invalid, "is malformed", a -> a.reschedule(plan("q", "1:[1:+]")));
    assertRefused(invalid, "is malformed", a -> a.reschedule(plan("q", "")));
    assertRefused(invalid, "NO_SHUFFLE ensemble [1, 2]", a -> a.reschedule(plan("q", FakeWorkers.MIRROR + ":[1:+1]")));
    assertRefused(invalid, "NO_SHUFFLE ensemble [1, 2]",
        a -> a.scale(ScaleJobRequest.newBuilder().setJob("q").setFragment(FakeWorkers.MIRROR).setParallelism("2").build()));
    assertRefused(invalid, "singleton", a -> a.reschedule(plan("q", FakeWorkers.SINGLE + ":[1:+1]")));
    assertRefused(invalid, "unknown worker", a -> a.workerDrain(WorkerDrainRequest.newBuilder().setWorkerId(9).build()));
    assertRefused(invalid, "slots 300", a -> a.workerAdd(WorkerAddRequest.newBuilder().setSlots(300).build()));
    assertThat(launched).isEmpty();
  }

  @Test
  void drainingTheLastSchedulableWorkerFailsItsPrecondition() {
    cluster.meta.drainWorker(2);

    StatusRuntimeException e = refused(() -> admin.workerDrain(WorkerDrainRequest.newBuilder().setWorkerId(1).build()));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(e.getStatus().getDescription()).contains("drain of worker 1 refused", "last schedulable worker");
    assertThat(cluster.meta.snapshot().draining()).doesNotContain(1);
  }

  @Test
  void statusAnswersWithMetasBarrierStatistics() {
    // Statistics change with every commit; those of a later reading are never behind.
    long epoch = admin.status(StatusRequest.getDefaultInstance()).getCommittedEpoch();

    assertThat(cluster.meta.stats().committedEpoch()).isGreaterThanOrEqualTo(epoch);
  }
}

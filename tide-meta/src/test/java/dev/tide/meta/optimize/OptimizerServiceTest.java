package dev.tide.meta.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.common.config.Config;
import dev.tide.common.store.VersionDeltas;
import dev.tide.common.time.ManualClock;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.TableStatus;
import dev.tide.optimizer.worker.CompactionRunner;
import dev.tide.optimizer.workload.TableSettings;
import dev.tide.optimizer.workload.WorkloadOptions;
import dev.tide.proto.optimizer.AckRequest;
import dev.tide.proto.optimizer.CompactionTask;
import dev.tide.proto.optimizer.CompleteRequest;
import dev.tide.proto.optimizer.HeartbeatRequest;
import dev.tide.proto.optimizer.OptimizerServiceGrpc;
import dev.tide.proto.optimizer.PollRequest;
import dev.tide.proto.optimizer.PollResponse;
import dev.tide.proto.optimizer.RegisterRequest;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.SortedWriteBatch;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.sst.BlockCache;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optimizer protocol end to end over in-process gRPC against the optimizing service, with a manual
 * clock and a version holder that applies deltas as meta does: status mapping of errors, expiry, a
 * full task round trip with a real compaction, the commit as a version change, and deletion of the
 * obsolete inputs once readers moved past them and the grace passed.
 */
class OptimizerServiceTest {
  @TempDir
  Path dir;
  final ManualClock clock = new ManualClock(1_000_000);
  final AtomicReference<StoreVersion> version = new AtomicReference<>(VersionDeltas.empty());
  final AtomicLong ids = new AtomicLong(1);
  LocalObjectStore objects;
  OptimizingService service;
  Server server;
  ManagedChannel channel;
  OptimizerServiceGrpc.OptimizerServiceBlockingStub stub;

  final CompactionCommitter committer = new CompactionCommitter() {
    @Override
    public StoreVersion committedVersion() {
      return version.get();
    }

    @Override
    public synchronized StoreVersion commitCompaction(List<Long> removeSstIds, List<SstInfo> outputs) {
      RuntimeException failure = commitFailure.getAndSet(null);
      if (failure != null) {
        throw failure;
      }
      StoreVersion v = version.get();
      StoreVersion next = VersionDeltas.apply(v, VersionDeltas.compaction(v, removeSstIds, 1, outputs));
      VersionDeltas.allSsts(v).stream().filter(s -> removeSstIds.contains(s.getId()))
          .forEach(s -> obsoleteRecords.put(s.getId(), new ObsoleteSstRecord(s, next.getId())));
      version.set(next);
      return next;
    }

    @Override
    public long allocateSstIds(int count) {
      return ids.getAndAdd(count);
    }

    @Override
    public List<ObsoleteSstRecord> obsoleteSsts() {
      return List.copyOf(obsoleteRecords.values());
    }

    @Override
    public void forgetObsoleteSsts(List<Long> sstIds) {
      sstIds.forEach(obsoleteRecords::remove);
    }

    @Override
    public Map<Long, Map<String, String>> tableProperties() {
      return Map.copyOf(storedTableProperties);
    }

    @Override
    public void putTableProperties(long tableId, Map<String, String> properties) {
      if (properties.isEmpty()) {
        storedTableProperties.remove(tableId);
      } else {
        storedTableProperties.put(tableId, Map.copyOf(properties));
      }
    }
  };
  /** The committer's durable table properties. */
  final Map<Long, Map<String, String>> storedTableProperties = new java.util.concurrent.ConcurrentHashMap<>();
  /** The next commit throws this, if set. */
  final AtomicReference<RuntimeException> commitFailure = new AtomicReference<>();
  /** The committer's durable obsolete-SST records, by SST id. */
  final Map<Long, ObsoleteSstRecord> obsoleteRecords = new java.util.concurrent.ConcurrentSkipListMap<>();

  @BeforeEach
  void start() throws Exception {
    objects = new LocalObjectStore(dir);
    Config config = Config.defaults().with(WorkloadOptions.L0_FILES, 3).with(WorkloadOptions.DELETE_GRACE, Duration.ofSeconds(10))
        .with(WorkloadOptions.REGISTER_TOKEN, "s3cret");
    GroupConfig group = GroupConfig.parse(Map.of("optimizer.heart-beat-timeout", "60s"), "in-process");
    service = new OptimizingService(config, clock, committer, objects, g -> group, () -> version.get().getId());
    String name = "optimizer-test-" + System.nanoTime();
    server = InProcessServerBuilder.forName(name).addService(new OptimizerGrpcService(service)).build().start();
    channel = InProcessChannelBuilder.forName(name).build();
    stub = OptimizerServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
    service.close();
  }

  /** Three checkpoints of table 1001 through a real state store: three L0 SSTs in the object store. */
  void writeCheckpoints() {
    StateStore store = new StateStore(objects, new BlockCache(1 << 20), "state", ids::getAndIncrement);
    for (long epoch = 1; epoch <= 3; epoch++) {
      byte[][] keys = new byte[20][];
      byte[][] values = new byte[20][];
      for (int i = 0; i < 20; i++) {
        keys[i] = ByteBuffer.allocate(8).putInt(1001).putShort((short) i).putShort((short) epoch).array();
        values[i] = ("v" + epoch + "-" + i).getBytes();
      }
      store.ingest(epoch, SortedWriteBatch.ofSorted(keys, values));
      List<SstInfo> ssts = store.sync(epoch);
      StoreVersion v = version.get();
      version.set(VersionDeltas.apply(v, VersionDeltas.checkpoint(v, epoch, ssts)));
    }
  }

  String register() {
    return stub.register(RegisterRequest.newBuilder().setGroup("default").setThreads(2).setToken("s3cret").build()).getInstanceId();
  }

  static Status.Code code(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void errorsMapToStatusesThatTellTheOptimizerWhatToDo() {
    assertThatThrownBy(() -> stub.register(RegisterRequest.newBuilder().setGroup("default").setThreads(1).setToken("guess").build()))
        .isInstanceOf(StatusRuntimeException.class).hasMessageContaining("PERMISSION_DENIED").hasMessageContaining("optimizer.register-token");
    assertThat(code(() -> stub.register(RegisterRequest.newBuilder().setGroup("default").setThreads(0).setToken("s3cret").build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> stub.poll(PollRequest.newBuilder().setInstanceId("nobody").build()))).isEqualTo(Status.Code.NOT_FOUND);
    String id = register();
    assertThat(code(() -> stub.poll(PollRequest.newBuilder().setInstanceId(id).setThread(2).build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code(() -> stub.ack(AckRequest.newBuilder().setInstanceId(id).setTaskId(42).setAttempt(1).build())))
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(service.instances("default")).hasSize(1);
  }

  @Test
  void silentInstanceExpiresAndMustRegisterAgain() {
    String id = register();
    clock.advance(Duration.ofSeconds(59));
    stub.heartbeat(HeartbeatRequest.newBuilder().setInstanceId(id).build());
    clock.advance(Duration.ofSeconds(59));
    service.maintain();
    assertThat(service.instances("default")).hasSize(1);
    clock.advance(Duration.ofSeconds(1));
    service.maintain();
    assertThat(service.instances("default")).isEmpty();
    assertThat(code(() -> stub.heartbeat(HeartbeatRequest.newBuilder().setInstanceId(id).build()))).isEqualTo(Status.Code.NOT_FOUND);
  }

  /** One compaction of table 1001 through the RPCs, up to its commit. @return its inputs and outputs */
  List<List<SstInfo>> compactOnce() {
    List<List<SstInfo>> io = runOneTask();
    await().atMost(Duration.ofSeconds(30)).until(() -> service.tableStatus(1001).orElseThrow() == TableStatus.IDLE);
    StoreVersion v = version.get();
    assertThat(v.getL0().getSstsList()).isEmpty();
    assertThat(v.getLevels(0).getSstsList()).containsExactlyElementsOf(io.get(1));
    assertThat(service.stats().compactionsCommitted()).isEqualTo(1);
    return io;
  }

  /** Checkpoints, then one task of table 1001 run and completed through the RPCs. @return its inputs and outputs */
  List<List<SstInfo>> runOneTask() {
    writeCheckpoints();
    List<SstInfo> inputs = version.get().getL0().getSstsList();
    assertThat(inputs).hasSize(3);
    String id = register();
    service.maintain(); // the trigger: table 1001 has 3 L0 SSTs
    assertThat(service.tableStatus(1001)).contains(TableStatus.PENDING);

    CompactionTask task = pollTask(id);
    assertThat(task.getInputsList()).hasSize(3);
    List<SstInfo> outputs = runAndComplete(id, task);
    // a second completion of the same attempt is refused: the task completes once
    assertThat(code(() -> stub.complete(CompleteRequest.newBuilder().setInstanceId(id).setTaskId(task.getTaskId())
        .setAttempt(task.getAttempt()).addAllOutputs(outputs).build()))).isEqualTo(Status.Code.FAILED_PRECONDITION);
    return List.of(inputs, outputs);
  }

  /** Polls until a task comes: the first poll starts planning (on the service's driver), a later one gets it. */
  CompactionTask pollTask(String id) {
    AtomicReference<CompactionTask> got = new AtomicReference<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      PollResponse r = stub.poll(PollRequest.newBuilder().setInstanceId(id).setThread(0).build());
      got.set(r.getTask());
      return r.getHasTask();
    });
    return got.get();
  }

  /** Acks, runs and completes {@code task}. @return its outputs */
  List<SstInfo> runAndComplete(String id, CompactionTask task) {
    stub.ack(AckRequest.newBuilder().setInstanceId(id).setTaskId(task.getTaskId()).setAttempt(task.getAttempt()).build());
    List<SstInfo> outputs = new CompactionRunner(objects, new BlockCache(1 << 20)).run(task, ids::getAndIncrement);
    stub.complete(CompleteRequest.newBuilder().setInstanceId(id).setTaskId(task.getTaskId()).setAttempt(task.getAttempt())
        .addAllOutputs(outputs).build());
    return outputs;
  }

  @Test
  void aRefusedCommitDeletesTheOutputsButOneOfUnknownOutcomeKeepsThem() {
    commitFailure.set(new IllegalStateException("interrupted while waiting for meta"));
    List<SstInfo> unknown = runOneTask().get(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> service.stats().compactionsAbandoned() == 1);
    // The version may hold them (the commit may have landed before the failure): they must survive.
    assertThat(unknown).isNotEmpty().allMatch(s -> objects.exists(s.getObjectPath()));

    commitFailure.set(new IllegalArgumentException("the delta does not apply"));
    String id = service.instances("default").get(0).instanceId();
    List<SstInfo> refused = runAndComplete(id, pollTask(id));
    await().atMost(Duration.ofSeconds(30)).until(() -> service.stats().compactionsAbandoned() == 2);
    // Refused: nothing changed, so they are garbage.
    assertThat(refused).isNotEmpty().noneMatch(s -> objects.exists(s.getObjectPath()));
    assertThat(version.get().getLevelsList().stream().allMatch(l -> l.getSstsCount() == 0)).isTrue();
  }

  @Test
  void taskRoundTripCommitsAVersionChangeAndDeletesTheInputsAfterTheGrace() {
    List<List<SstInfo>> io = compactOnce();
    List<SstInfo> inputs = io.get(0);
    List<SstInfo> outputs = io.get(1);
    assertThat(obsoleteRecords.keySet()).containsExactlyInAnyOrderElementsOf(inputs.stream().map(SstInfo::getId).toList());

    deletedExactlyAfterTheGrace(inputs);
    assertThat(outputs).allMatch(s -> objects.exists(s.getObjectPath()));
    assertThat(service.deletedSsts()).isEqualTo(3);
    assertThat(obsoleteRecords).isEmpty();
  }

  @Test
  void obsoleteSstsAMetaRestartInterruptedAreDeletedByTheNextRun() {
    List<SstInfo> inputs = compactOnce().get(0);
    service.close(); // meta stops before the grace: the deletions are only recorded
    assertThat(inputs).allMatch(s -> objects.exists(s.getObjectPath()));

    Config config = Config.defaults().with(WorkloadOptions.DELETE_GRACE, Duration.ofSeconds(10));
    GroupConfig group = GroupConfig.parse(Map.of(), "in-process");
    service = new OptimizingService(config, clock, committer, objects, g -> group, () -> version.get().getId());
    assertThat(service.obsoleteSstsWaiting()).isEqualTo(inputs.size());
    deletedExactlyAfterTheGrace(inputs);
    assertThat(obsoleteRecords).isEmpty();
    assertThat(service.obsoleteSstsWaiting()).isZero();
  }

  /** Readers are past the dropping version: {@code dropped} go once the 10 s grace has passed, not before. */
  void deletedExactlyAfterTheGrace(List<SstInfo> dropped) {
    service.maintain(); // the grace starts now
    clock.advance(Duration.ofMillis(9_999));
    service.maintain();
    assertThat(dropped).allMatch(s -> objects.exists(s.getObjectPath()));
    clock.advance(Duration.ofMillis(1));
    service.maintain();
    assertThat(dropped).noneMatch(s -> objects.exists(s.getObjectPath()));
  }

  @Test
  void tablePropertiesAreValidatedStoredAndSurviveARestart() {
    writeCheckpoints();
    assertThatThrownBy(() -> service.updateTable(4242, Map.of("self-optimizing.quota", "2"), List.of(), g -> true))
        .isInstanceOf(java.util.NoSuchElementException.class).hasMessageContaining("holds no table 4242 (tables: [1001])");
    assertThatThrownBy(() -> service.updateTable(1001, Map.of("self-optimizing.quota", "-1"), List.of(), g -> true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("update of table 1001 refused: self-optimizing.quota -1.0 must be");
    assertThatThrownBy(() -> service.updateTable(1001, Map.of("self-optimizing.group", "big"), List.of(), g -> g.equals("default")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'big' names no optimizer group");
    assertThatThrownBy(() -> service.updateTable(1001, Map.of(), List.of("self-optimizing.color"), g -> true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown table property 'self-optimizing.color'");
    assertThat(storedTableProperties).isEmpty(); // refusals changed nothing

    TableInfo t = service.updateTable(1001, Map.of("self-optimizing.quota", "3", "self-optimizing.group", "big"), List.of(), g -> true);
    assertThat(t.settings()).isEqualTo(new TableSettings("big", 3));
    assertThat(t.l0Files()).isEqualTo(3);
    assertThat(storedTableProperties).containsKey(1001L);

    service.close(); // a new meta run loads the stored properties
    GroupConfig group = GroupConfig.parse(Map.of(), "in-process");
    service = new OptimizingService(Config.defaults(), clock, committer, objects, g -> group, () -> version.get().getId());
    assertThat(service.tableInfos()).singleElement().satisfies(i -> {
      assertThat(i.settings()).isEqualTo(new TableSettings("big", 3));
      assertThat(i.properties()).containsEntry("self-optimizing.quota", "3");
    });
    service.maintain(); // observed: the table is PENDING in group big, not in default
    assertThat(service.tables("big")).singleElement().satisfies(l -> assertThat(l.quota()).isEqualTo(3));
    assertThat(service.tables("default")).isEmpty();

    TableInfo back = service.updateTable(1001, Map.of(), List.of("self-optimizing.quota", "self-optimizing.group"), g -> true);
    assertThat(back.settings()).isEqualTo(TableSettings.DEFAULTS);
    assertThat(storedTableProperties).isEmpty();
  }
}

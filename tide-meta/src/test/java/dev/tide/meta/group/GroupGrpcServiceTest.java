package dev.tide.meta.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tide.common.time.Clock;
import dev.tide.meta.store.JdbcMetaStore;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupLoadSource;
import dev.tide.optimizer.provider.ExternalProvider;
import dev.tide.optimizer.provider.InProcessProvider;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.optimizer.provider.ResourceProvider;
import dev.tide.proto.group.CreateGroupRequest;
import dev.tide.proto.group.GroupRequest;
import dev.tide.proto.group.GroupServiceGrpc;
import dev.tide.proto.group.GroupView;
import dev.tide.proto.group.ListGroupsRequest;
import dev.tide.proto.group.UpdateGroupRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Group CRUD through the gRPC API, persisted in a SQLite meta store, including refusals that change nothing. */
class GroupGrpcServiceTest {
  /** No tables and no registered instances: a workload that has not started yet. */
  static final class IdleLoad implements GroupLoadSource {
    @Override
    public List<TableLoad> tables(String group) {
      return List.of();
    }

    @Override
    public List<InstanceView> instances(String group) {
      return List.of();
    }

    @Override
    public void drain(String group, String instanceId) {}

    @Override
    public void addListener(Runnable listener) {}
  }

  @TempDir
  Path dir;
  JdbcMetaStore store;
  ScheduledExecutorService scheduler;
  InProcessProvider inProcess;
  final Map<String, LaunchSpec> launched = new ConcurrentHashMap<>();
  GroupKeepers keepers;
  Server server;
  ManagedChannel channel;
  GroupServiceGrpc.GroupServiceBlockingStub stub;

  @BeforeEach
  void setUp() throws Exception {
    store = JdbcMetaStore.open("jdbc:sqlite:" + dir.resolve("meta.db"));
    scheduler = Executors.newSingleThreadScheduledExecutor();
    inProcess = new InProcessProvider(spec -> {
      launched.put(spec.resourceId(), spec);
      return () -> launched.remove(spec.resourceId());
    });
    startKeepers();
  }

  private void startKeepers() throws Exception {
    Map<String, ResourceProvider> providers = Map.of(inProcess.name(), inProcess, ExternalProvider.NAME, new ExternalProvider());
    keepers = new GroupKeepers(Clock.SYSTEM, scheduler, new IdleLoad(), new MetaGroupStore(store), providers);
    keepers.start();
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor().addService(new GroupGrpcService(keepers)).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = GroupServiceGrpc.newBlockingStub(channel);
  }

  private void stopKeepers() {
    channel.shutdownNow();
    server.shutdownNow();
    keepers.close();
  }

  @AfterEach
  void tearDown() {
    stopKeepers();
    scheduler.shutdownNow();
    inProcess.close();
    store.close();
  }

  private static CreateGroupRequest create(String name, String provider, Map<String, String> props) {
    return CreateGroupRequest.newBuilder().setName(name).setProvider(provider).putAllProperties(props).build();
  }

  static final Map<String, String> DRA = Map.of("dynamic-allocation.enabled", "true", "dynamic-allocation.max-parallelism", "8",
      "dynamic-allocation.executor-parallelism", "2");

  @Test
  void createUpdateListShowDeleteAndSurviveARestart() throws Exception {
    GroupView created = stub.create(create("default", "in-process", DRA));
    assertThat(created.getDraEnabled()).isTrue();
    assertThat(created.getPropertiesMap()).isEqualTo(DRA);
    stub.create(create("manual", "external", Map.of("optimizer.heart-beat-timeout", "2min")));

    GroupView updated = stub.update(UpdateGroupRequest.newBuilder().setName("default")
        .putSet("dynamic-allocation.min-parallelism", "4").putSet("optimizer.task-ack-timeout", "1min")
        .addUnset("dynamic-allocation.executor-parallelism").build());
    assertThat(updated.getPropertiesMap()).containsEntry("dynamic-allocation.min-parallelism", "4")
        .doesNotContainKey("dynamic-allocation.executor-parallelism");

    assertThat(stub.list(ListGroupsRequest.getDefaultInstance()).getGroupsList()).extracting(GroupView::getName)
        .containsExactly("default", "manual");
    assertThat(stub.list(ListGroupsRequest.getDefaultInstance()).getProvidersList()).containsExactly("external", "in-process");

    // The floor of 4 threads of K=1 is requested from the in-process provider and recorded in the store.
    await().until(() -> launched.size() == 4);
    GroupView shown = stub.show(GroupRequest.newBuilder().setName("default").build());
    assertThat(shown.getMetrics().getEffectiveThreads()).isEqualTo(4);
    assertThat(shown.getResourcesCount()).isEqualTo(4);
    assertThat(shown.getLastDecision()).contains("floor: effective 0 < min-parallelism 4");

    stopKeepers();
    startKeepers(); // a restarted meta
    assertThat(stub.show(GroupRequest.newBuilder().setName("manual").build()).getPropertiesMap())
        .containsEntry("optimizer.heart-beat-timeout", "2min");
    GroupView again = stub.show(GroupRequest.newBuilder().setName("default").build());
    assertThat(again.getPropertiesMap()).isEqualTo(updated.getPropertiesMap());
    assertThat(again.getMetrics().getEffectiveThreads()).as("stored requests count as booting").isEqualTo(4);

    stub.delete(GroupRequest.newBuilder().setName("default").build());
    assertThat(launched).isEmpty();
    assertThat(store.optimizerResources()).isEmpty();
    assertThat(stub.list(ListGroupsRequest.getDefaultInstance()).getGroupsList()).extracting(GroupView::getName)
        .containsExactly("manual");
  }

  @Test
  void refusalsNameThePropertyTheValueAndTheRuleAndChangeNothing() {
    stub.create(create("default", "in-process", DRA));
    var before = store.optimizerGroups();

    assertRefused(() -> stub.create(create("default", "in-process", Map.of())), Status.Code.ALREADY_EXISTS, "the group exists");
    assertRefused(() -> stub.create(create("g2", "in-process", Map.of("dynamic-allocation.enabled", "true"))),
        Status.Code.INVALID_ARGUMENT, "dynamic-allocation.max-parallelism");
    assertRefused(() -> stub.create(create("g3", "external", DRA)), Status.Code.INVALID_ARGUMENT,
        "invalid value 'true' for option 'dynamic-allocation.enabled'");
    assertRefused(() -> stub.create(create("g4", "yarn", Map.of())), Status.Code.INVALID_ARGUMENT,
        "invalid value 'yarn' for the resource provider");
    assertRefused(() -> stub.create(create("No Spaces", "in-process", Map.of())), Status.Code.INVALID_ARGUMENT,
        "group name 'No Spaces' is not valid");
    assertRefused(() -> stub.create(create("g5", "in-process", Map.of("dynamic-allocation.max-parallelizm", "4"))),
        Status.Code.INVALID_ARGUMENT, "dynamic-allocation.max-parallelizm");
    assertRefused(() -> stub.create(create("g6", "in-process", Map.of("no.such.key", "1"))), Status.Code.INVALID_ARGUMENT,
        "option 'no.such.key': unknown option; known options are [");
    assertRefused(() -> stub.update(UpdateGroupRequest.newBuilder().setName("default").putSet("no.such.key", "1").build()),
        Status.Code.INVALID_ARGUMENT, "dynamic-allocation.max-parallelism");
    assertRefused(() -> stub.update(UpdateGroupRequest.newBuilder().setName("default")
            .putSet("dynamic-allocation.sustained-backlog-timeout", "10min").build()),
        Status.Code.INVALID_ARGUMENT, "invalid value '10min' for option 'dynamic-allocation.sustained-backlog-timeout'");
    assertRefused(() -> stub.update(UpdateGroupRequest.newBuilder().setName("default")
            .putSet("dynamic-allocation.max-parallelism", "2000").build()),
        Status.Code.INVALID_ARGUMENT, "between 1 and 1024");
    assertRefused(() -> stub.update(UpdateGroupRequest.newBuilder().setName("nope").build()), Status.Code.INVALID_ARGUMENT,
        "no optimizer group 'nope'");
    assertRefused(() -> stub.show(GroupRequest.newBuilder().setName("nope").build()), Status.Code.NOT_FOUND, "no such group");
    assertRefused(() -> stub.delete(GroupRequest.newBuilder().setName("nope").build()), Status.Code.NOT_FOUND, "no such group");

    assertThat(store.optimizerGroups()).isEqualTo(before);
    assertThat(stub.show(GroupRequest.newBuilder().setName("default").build()).getPropertiesMap()).isEqualTo(DRA);
  }

  private static void assertRefused(Runnable call, Status.Code code, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(message);
    });
  }

  @Test
  void propertiesTextRoundTripsAnyKeyAndValue() {
    Map<String, String> props = Map.of("a", "1", "key with spaces", "=:#!\\", "unicode", "é→✓", "multi", "line\nbreak");
    String text = PropertiesText.render(props);
    assertThat(text).startsWith("a=1\n");
    assertThat(PropertiesText.parse(text)).isEqualTo(props);
  }
}

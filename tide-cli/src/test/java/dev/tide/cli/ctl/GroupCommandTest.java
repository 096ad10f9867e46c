package dev.tide.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tide.cli.TideCli;
import dev.tide.common.time.Clock;
import dev.tide.meta.group.GroupGrpcService;
import dev.tide.meta.group.MetaGroupStore;
import dev.tide.meta.store.JdbcMetaStore;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.TableLoad;
import dev.tide.optimizer.keeper.GroupKeepers;
import dev.tide.optimizer.keeper.GroupLoadSource;
import dev.tide.optimizer.provider.ExternalProvider;
import dev.tide.optimizer.provider.InProcessProvider;
import dev.tide.optimizer.provider.ResourceProvider;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tide ctl group …} end to end: the group API on a loopback port over a SQLite meta store and an
 * in-process provider, every command run through the {@code tide} entry point.
 */
class GroupCommandTest {
  record Run(int exitCode, String out, String err) {}

  /** A workload with no tables and no registered instance yet. */
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
  final Set<String> running = ConcurrentHashMap.newKeySet();
  GroupKeepers keepers;
  Server server;

  @BeforeEach
  void start() throws Exception {
    store = JdbcMetaStore.open("jdbc:sqlite:" + dir.resolve("meta.db"));
    scheduler = Executors.newSingleThreadScheduledExecutor();
    inProcess = new InProcessProvider(spec -> {
      running.add(spec.resourceId());
      return () -> running.remove(spec.resourceId());
    });
    Map<String, ResourceProvider> providers = Map.of(inProcess.name(), inProcess, ExternalProvider.NAME, new ExternalProvider());
    keepers = new GroupKeepers(Clock.SYSTEM, scheduler, new IdleLoad(), new MetaGroupStore(store), providers);
    keepers.start();
    server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .addService(new GroupGrpcService(keepers)).build().start();
  }

  @AfterEach
  void stop() {
    server.shutdownNow();
    keepers.close();
    scheduler.shutdownNow();
    inProcess.close();
    store.close();
  }

  private Run ctl(String... args) {
    List<String> all = new ArrayList<>(List.of("ctl", "group"));
    all.addAll(List.of(args));
    all.add("--meta");
    all.add("127.0.0.1:" + server.getPort());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TideCli.run(new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
    return new Run(code, out.toString(), err.toString());
  }

  private static void ok(Run r) {
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
  }

  @Test
  void createUpdateListShowDelete() {
    Run created = ctl("create", "default", "-P", "dynamic-allocation.enabled=true", "-P", "dynamic-allocation.max-parallelism=8",
        "-P", "dynamic-allocation.executor-parallelism=2", "-P", "dynamic-allocation.min-parallelism=4");
    ok(created);
    assertThat(created.out()).isEqualTo("optimizer group default created on provider in-process; dynamic allocation on\n");
    ok(ctl("create", "manual", "--provider", "external"));

    await().until(() -> running.size() == 2); // the floor: 4 threads in instances of 2
    Run shown = ctl("show", "default");
    ok(shown);
    assertThat(shown.out()).startsWith("optimizer group default on provider in-process: dynamic allocation on\nproperties:\n")
        .contains("  dynamic-allocation.min-parallelism = 4\n")
        .contains("  effective-threads 4\n")
        .contains("last decision: floor: effective 0 < min-parallelism 4; adding 2 instances of 2 threads at once (cap 8)")
        .contains("resources: 2\n");

    Run listed = ctl("list");
    ok(listed);
    assertThat(listed.out()).startsWith("optimizer groups: 2 (providers: external, in-process)\n")
        .containsPattern("\\n  default +in-process +on +0 +0 +4 ")
        .containsPattern("\\n  manual +external +off ");

    Run updated = ctl("update", "default", "--set", "dynamic-allocation.enabled=false", "--unset", "dynamic-allocation.min-parallelism");
    ok(updated);
    assertThat(updated.out()).isEqualTo("optimizer group default updated; dynamic allocation off\n");

    ok(ctl("delete", "default"));
    assertThat(running).isEmpty();
    assertThat(ctl("list").out()).doesNotContain("default");
  }

  @Test
  void refusalsPrintOneLineAndChangeNothing() {
    ok(ctl("create", "default"));
    Run bad = ctl("update", "default", "--set", "dynamic-allocation.enabled=true", "--set", "dynamic-allocation.max-parallelism=4",
        "--set", "dynamic-allocation.executor-parallelism=8");
    assertThat(bad.exitCode()).isEqualTo(1);
    assertThat(bad.out()).isEmpty();
    assertThat(bad.err()).isEqualTo("error: update of optimizer group 'default' refused: invalid value '8' for option"
        + " 'dynamic-allocation.executor-parallelism': must be at most dynamic-allocation.max-parallelism (4): a single instance"
        + " would already exceed the cap\n");
    assertThat(ctl("show", "default").out()).contains("dynamic allocation off").doesNotContain("executor-parallelism");

    Run external = ctl("create", "ext", "--provider", "external", "-P", "dynamic-allocation.enabled=true",
        "-P", "dynamic-allocation.max-parallelism=4");
    assertThat(external.exitCode()).isEqualTo(1);
    assertThat(external.err()).contains("invalid value 'true' for option 'dynamic-allocation.enabled'").contains("external");

    Run missing = ctl("show", "nope");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).startsWith("error: show of optimizer group 'nope' refused: no such group (groups: [default])");

    Run usage = ctl("update", "default");
    assertThat(usage.exitCode()).isEqualTo(2);
    assertThat(usage.err()).contains("--set KEY=VALUE or --unset KEY");
    assertThat(ctl("list").out()).startsWith("optimizer groups: 1 ");
  }
}

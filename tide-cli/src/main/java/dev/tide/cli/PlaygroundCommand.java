package dev.tide.cli;

import dev.tide.cli.ctl.AdminServer;
import dev.tide.cli.ctl.ViewGrpcService;
import dev.tide.cli.ctl.MetaAddress;
import dev.tide.cli.logging.ShutdownLogs;
import dev.tide.cli.playground.Playground;
import dev.tide.cli.playground.PlaygroundScript;
import dev.tide.cli.playground.PlaygroundSettings;
import dev.tide.cli.playground.PlaygroundView;
import dev.tide.cli.playground.ProcessPlayground;
import dev.tide.cli.playground.Sample;
import dev.tide.cluster.JobGrpcService;
import dev.tide.cluster.SqlFrontend;
import dev.tide.cluster.LocalCluster;
import dev.tide.dashboard.Dashboard;
import dev.tide.cluster.OptimizerGroups;
import dev.tide.common.config.Config;
import dev.tide.common.config.Durations;
import dev.tide.meta.MetaOptions;
import dev.tide.meta.autoscale.AutoscalerOptions;
import dev.tide.meta.pool.ComputePoolOptions;
import dev.tide.meta.group.GroupGrpcService;
import dev.tide.meta.group.TableGrpcService;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.workload.WorkloadOptions;
import io.grpc.BindableService;
import dev.tide.meta.admin.WorkerLauncher;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tide playground}: an in-process cluster running Nexmark q5 and q7 with live progress. */
@Command(name = "playground", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Runs Nexmark q5 and q7 on an in-process cluster and shows their progress.",
        "",
        "Starts meta and compute nodes in this process, runs q5 (hot items) and q7 (highest bid) on a"
            + " rate-limited unbounded Nexmark source, prints progress every second, and after the duration a"
            + " summary and the newest rows of both materialized views.",
        "",
        "Both jobs are owned by the autoscaler. At 20%% of the duration q5's source steps up to 100 times the rate, at 32%%"
            + " back down: the autoscaler scales q5 out and later in from the load its actors measure, the compute pool adds"
            + " in-process nodes when q5 wants more actors than there are slots and drains them 30 s after it no longer does,"
            + " and each decision prints with its reason. Meta's"
            + " admin API answers 'tide ctl' (e.g. ./tide ctl cluster) on 127.0.0.1. Runs of a minute or more also start a"
            + " bounded backfill (q1 over 3,000,000 events at 150,000/s) at 10%%: the optimizer group scales up for the compaction it causes"
            + " and drains back once idle, and every action of its keeper is printed with its reason.",
        ""})
final class PlaygroundCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--duration", defaultValue = "120s", converter = OptionChecks.DurationConverter.class,
      description = "How long to run, e.g. 30s, 5min (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--rate", defaultValue = "10000",
      description = "Events per second of each query's source (default: ${DEFAULT-VALUE}).")
  long rate;

  @Option(names = "--nodes", defaultValue = "2", description = "Compute nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--slots", defaultValue = "1", description = "Actor slots per compute node (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--barrier-interval", defaultValue = "1s", converter = OptionChecks.DurationConverter.class,
      description = "Time between checkpoint barriers (default: ${DEFAULT-VALUE}).")
  Duration barrierInterval;

  @Option(names = "--admin-port", defaultValue = "" + MetaAddress.DEFAULT_PORT, paramLabel = "PORT",
      description = "Port of the admin API for 'tide ctl', on 127.0.0.1 only; 0 picks a free one (default: ${DEFAULT-VALUE},"
          + " or a free one when that is taken).")
  int adminPort;

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "Empty or new directory for the object store, kept afterwards (default: a temporary directory, deleted).")
  Path dataDir;

  @Option(names = "--processes",
      description = "Runs meta and every compute node as separate processes on loopback, and SIGKILLs one mid-run.")
  boolean processes;

  @Override
  public Integer call() throws Exception {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    boolean temporary = dataDir == null;
    Path dir = temporary ? Files.createTempDirectory("tide-playground-") : Files.createDirectories(dataDir);
    PlaygroundSettings settings = new PlaygroundSettings(duration, rate, nodes, slots, barrierInterval, dir);
    if (processes) {
      try {
        new ProcessPlayground(settings, out).run(adminPort);
      } finally {
        if (temporary) {
          new Cleanup(dir).run();
        }
      }
      out.println(temporary ? "Done; the temporary data directory was deleted." : "Done; data and process logs kept in " + dir + ".");
      return TideCli.EXIT_OK;
    }
    List<PlaygroundView> views = PlaygroundView.standard();
    Playground playground = new Playground(settings, views, PlaygroundScript.standard(settings, views), out);
    // Compaction sized for a demo's state (tens of MB, not GB): tasks of 8 MB, so that the burst's
    // compactions split into several tasks, and a trigger of 16 L0 files. The playground creates its
    // own optimizer group (DEMO_GROUP) instead of the embedded default.
    Config config = Config.defaults().with(MetaOptions.BARRIER_INTERVAL, barrierInterval)
        .with(WorkloadOptions.TASK_INPUT_BYTES, 8L << 20).with(WorkloadOptions.L0_FILES, 16)
        .with(OptimizerGroups.CREATE_DEFAULT_GROUP, false)
        // The compute pool: in-process nodes like the others, added when q5 is scaled beyond the slots, drained 30 s after.
        .with(ComputePoolOptions.PROVIDER, "in-process").with(ComputePoolOptions.NODE_SLOTS, slots)
        .with(ComputePoolOptions.MAX_SLOTS, (int) Math.min(1024, PlaygroundScript.scaledOut(settings)))
        .with(ComputePoolOptions.BACKLOG_TIMEOUT, Duration.ofSeconds(2)).with(ComputePoolOptions.SUSTAINED_TIMEOUT, Duration.ofSeconds(2))
        .with(ComputePoolOptions.IDLE_TIMEOUT, Duration.ofSeconds(30)).with(ComputePoolOptions.SCALE_DOWN_COOLDOWN, Duration.ofSeconds(2));
    // The autoscaler on a demo's time scale: decisions after 10 s of stabilization and a 10 s window, scale-down after 10 s.
    config = config.with(AutoscalerOptions.INTERVAL, Duration.ofSeconds(2)).with(AutoscalerOptions.STABILIZATION, Duration.ofSeconds(10))
        .with(AutoscalerOptions.METRIC_WINDOW, Duration.ofSeconds(10)).with(AutoscalerOptions.SCALE_DOWN_DELAY, Duration.ofSeconds(10));

    Cleanup cleanup = new Cleanup(temporary ? dir : null);
    Thread hook = new Thread(cleanup::run, "tide-playground-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      LocalCluster cluster = new LocalCluster(dir, config, nodes, slots);
      cleanup.cluster = cluster;
      cluster.groups().create(DEMO_GROUP);
      AdminServer admin = startAdmin(cluster, config);
      cleanup.admin = admin;
      cleanup.dashboard = startDashboard(cluster, admin);
      out.println("Dashboard: " + cleanup.dashboard.url());
      cleanup.sql = SqlFrontend.start(cluster::meta, cluster.views(), config, java.util.Optional.empty(), "127.0.0.1", -1);
      out.println("SQL: psql -h 127.0.0.1 -p " + cleanup.sql.port() + " -d dev");
      Sample last = playground.run(cluster, admin.address());
      playground.printSummary(cluster, last);
    } finally {
      cleanup.run();
      removeHook(hook);
    }
    out.println();
    out.println(temporary ? "Done; the temporary data directory was deleted." : "Done; data kept in " + dir + ".");
    return TideCli.EXIT_OK;
  }

  /**
   * The playground's optimizer group: the embedded default's settings, with instances of one thread
   * (a floor of one) and backlog timers of 1 s, so that a compaction burst a demo's machine can
   * produce shows the pool growing instance by instance, and shrinking after the 30 s idle timeout.
   */
  static final GroupDefinition DEMO_GROUP = demoGroup();

  private static GroupDefinition demoGroup() {
    Map<String, String> p = new TreeMap<>(OptimizerGroups.DEFAULT_GROUP.properties());
    p.put(GroupConfig.MIN_PARALLELISM.key(), "1");
    p.put(GroupConfig.MAX_PARALLELISM.key(), "4");
    p.put(GroupConfig.EXECUTOR_PARALLELISM.key(), "1");
    p.put(GroupConfig.SCHEDULER_BACKLOG_TIMEOUT.key(), "1s");
    p.put(GroupConfig.SUSTAINED_BACKLOG_TIMEOUT.key(), "1s");
    return GroupDefinition.of(OptimizerGroups.DEFAULT_GROUP.name(), OptimizerGroups.DEFAULT_GROUP.provider(), p);
  }

  /**
   * Serves the admin API on the requested port; when the default port is taken (another playground
   * runs) and no port was asked for, on a free one instead. {@code ctl worker add} starts nodes here.
   */
  private AdminServer startAdmin(LocalCluster cluster, Config config) {
    WorkerLauncher launcher = new WorkerLauncher() {
      @Override
      public int launch(int nodeSlots) {
        synchronized (cluster) {
          return cluster.addNode(nodeSlots).compute().workerId();
        }
      }

      @Override
      public int defaultSlots() {
        return slots;
      }
    };
    BindableService[] services = {new ViewGrpcService(cluster::meta, cluster.views()), new JobGrpcService(cluster::meta, config),
        new GroupGrpcService(cluster.groups()), new TableGrpcService(cluster.optimizing(), cluster.groups()),
        new dev.tide.meta.pool.PoolGrpcService(cluster::computePool, cluster.meta()::workerHealth)};
    try {
      return AdminServer.start(adminPort, cluster.meta(), launcher, services);
    } catch (IllegalStateException e) {
      if (spec.commandLine().getParseResult().hasMatchedOption("--admin-port")) {
        throw e;
      }
      return AdminServer.start(0, cluster.meta(), launcher, services);
    }
  }

  /** The dashboard on port 5691, or on a free port when that one is taken. */
  private static Dashboard.Served startDashboard(LocalCluster cluster, AdminServer admin) {
    try {
      return Dashboard.serveLoopback(5691, cluster.meta(), admin.address(), cluster.views());
    } catch (IllegalStateException e) {
      return Dashboard.serveLoopback(0, cluster.meta(), admin.address(), cluster.views());
    }
  }

  private void validate() {
    OptionChecks.range(spec, "--duration", duration, Duration.ofSeconds(1), Duration.ofHours(24));
    OptionChecks.range(spec, "--rate", rate, 1, 100_000_000);
    OptionChecks.range(spec, "--nodes", nodes, 1, 64);
    OptionChecks.range(spec, "--slots", slots, 1, 256);
    OptionChecks.range(spec, "--admin-port", adminPort, 0, 65535);
    OptionChecks.rule(spec, "--barrier-interval", MetaOptions.BARRIER_INTERVAL, barrierInterval, Durations.format(barrierInterval));
    if (dataDir != null && Files.exists(dataDir)) {
      if (!Files.isDirectory(dataDir)) {
        throw OptionChecks.invalid(spec, "--data-dir", dataDir.toString(), "is not a directory");
      }
      try (Stream<Path> entries = Files.list(dataDir)) {
        if (entries.findAny().isPresent()) {
          throw OptionChecks.invalid(spec, "--data-dir", dataDir.toString(),
              "is not empty; the playground starts a fresh cluster (meta state lives in memory)");
        }
      } catch (IOException e) {
        throw OptionChecks.invalid(spec, "--data-dir", dataDir.toString(), "cannot be read: " + e.getMessage());
      }
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook runs (and finds nothing left to do).
    }
  }

  /** Closes the cluster and deletes a temporary data directory, once: on normal exit or on Ctrl-C. */
  private static final class Cleanup {
    private final Path temporaryDir;
    volatile LocalCluster cluster;
    volatile AdminServer admin;
    volatile Dashboard.Served dashboard;
    volatile dev.tide.sql.PgServer sql;
    private boolean done;

    Cleanup(Path temporaryDir) {
      this.temporaryDir = temporaryDir;
    }

    synchronized void run() {
      if (done) {
        return;
      }
      done = true;
      if (dashboard != null) {
        dashboard.close();
      }
      if (sql != null) {
        sql.close();
      }
      if (admin != null) {
        admin.close();
      }
      if (cluster != null) {
        ShutdownLogs.quietly(cluster::close);
      }
      if (temporaryDir != null) {
        TempDirs.deleteTree(temporaryDir);
      }
    }
  }

}

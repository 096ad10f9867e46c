package dev.tide.bench.flink;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.client.program.MiniClusterClient;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A Flink MiniCluster in this JVM, one task manager with as many slots as the benchmark's
 * parallelism, and a client to it. Every job of the benchmark runs with the settings chosen to match
 * Tide's: object reuse on, exactly-once checkpoints at Tide's barrier interval, the heap state backend
 * ({@code hashmap}) with checkpoints and savepoints written as files under {@code dir}, no restarts.
 */
public final class FlinkCluster implements AutoCloseable {
  private final Configuration config;
  private final MiniCluster mini;
  private final MiniClusterClient client;
  private final int parallelism;
  private final Duration checkpointInterval;

  /** @param slots task slots (the most parallelism any job of this cluster may use) */
  public FlinkCluster(Path dir, int slots, int parallelism, Duration checkpointInterval) throws Exception {
    this(dir, slots, parallelism, checkpointInterval, c -> {});
  }

  /** @param tune changes to the configuration before the cluster starts (e.g. the adaptive scheduler) */
  public FlinkCluster(Path dir, int slots, int parallelism, Duration checkpointInterval,
      java.util.function.Consumer<Configuration> tune) throws Exception {
    this.parallelism = parallelism;
    this.checkpointInterval = checkpointInterval;
    config = new Configuration();
    config.set(StateBackendOptions.STATE_BACKEND, "hashmap");
    config.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("checkpoints").toUri().toString());
    config.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, dir.resolve("savepoints").toUri().toString());
    config.set(RestartStrategyOptions.RESTART_STRATEGY, "disable");
    // Any free port: a fixed 8081 makes a second benchmark on the machine hang at startup.
    config.set(RestOptions.BIND_PORT, "0");
    tune.accept(config);
    mini = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(config)
        .setNumTaskManagers(1).setNumSlotsPerTaskManager(slots).build());
    mini.start();
    client = new MiniClusterClient(config, mini);
  }

  /** A new environment for one job at the cluster's parallelism. */
  public StreamExecutionEnvironment environment() {
    return environment(parallelism);
  }

  public StreamExecutionEnvironment environment(int jobParallelism) {
    StreamExecutionEnvironment env = new StreamExecutionEnvironment(config);
    env.setParallelism(jobParallelism);
    env.setMaxParallelism(128);
    env.getConfig().enableObjectReuse();
    env.enableCheckpointing(checkpointInterval.toMillis(), CheckpointingMode.EXACTLY_ONCE);
    return env;
  }

  /** The REST endpoint of the cluster (its web UI and REST API). */
  public java.net.URI restUri() throws Exception {
    return mini.getRestAddress().get();
  }

  public MiniClusterClient client() {
    return client;
  }

  @Override
  public void close() throws Exception {
    client.close();
    mini.close();
  }
}

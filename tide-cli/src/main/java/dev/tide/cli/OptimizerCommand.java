package dev.tide.cli;

import dev.tide.cluster.Dial;
import dev.tide.cluster.ProcessOptions;
import dev.tide.cli.ctl.MetaAddress;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.optimizer.worker.OptimizerSettings;
import dev.tide.storage.object.ObjectStore;
import io.grpc.ManagedChannel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide optimizer}: an optimizer instance process. It registers with meta's optimizer service,
 * runs compaction tasks on K threads against the cluster's object store, and runs until stopped. On
 * SIGTERM or SIGINT it unregisters (meta hands its in-flight tasks to another instance at once), closes
 * the channel and the object store, and exits 0.
 *
 * <p>It reads the cluster config file every role reads ({@link ProcessOptions}): the object store is
 * the compute nodes', {@code object-store.dir} (or {@code --objects DIR}, default
 * {@code <data-dir>/objects}) or S3 when {@code s3.bucket} is set.
 */
@Command(name = "optimizer", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Runs an optimizer instance: K threads that compact state-store tables for meta.")
final class OptimizerCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(OptimizerCommand.class);

  @Spec
  CommandSpec spec;

  @Option(names = "--meta", required = true, paramLabel = "HOST:PORT", description = "Meta's optimizer service address.")
  String meta;

  @Option(names = "--threads", defaultValue = "1", paramLabel = "K", description = "Threads (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--group", defaultValue = "default", paramLabel = "G", description = "Optimizer group (default: ${DEFAULT-VALUE}).")
  String group;

  @Option(names = "--resource-id", defaultValue = "", paramLabel = "R",
      description = "The provider resource this instance runs in (set by the provider that launched it).")
  String resourceId;

  @Option(names = "--token", defaultValue = "", paramLabel = "T",
      description = "Registration token, also sent as the cluster token (default: the TIDE_TOKEN environment variable,"
          + " which the local provider sets; prefer it: a flag shows in the process list).")
  String token;

  @Option(names = "--objects", paramLabel = "DIR", description = "Local-directory object store (sets object-store.dir).")
  Path objectsDir;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Properties file with cluster options, the same file as meta's and compute's (see 'tide options');"
          + " this role reads data-dir, object-store.dir, the s3.* keys and cluster.token.")
  Path configFile;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Sets one option, e.g. --set object-store.dir=/var/tide/objects (repeatable).")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Directory whose objects/ subdirectory is the local object store.")
  Path dataDir;

  @Option(names = "--idle-poll", defaultValue = "500ms", converter = OptionChecks.DurationConverter.class, paramLabel = "DURATION",
      description = "Wait after a poll that gave no task (default: ${DEFAULT-VALUE}).")
  Duration idlePoll;

  @Override
  public Integer call() throws Exception {
    MetaAddress address;
    try {
      address = MetaAddress.parse(meta);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid value for option '--meta': " + e.getMessage());
    }
    Config config = config();
    OptimizerSettings settings;
    String secret;
    try {
      // One secret for both: the registration token, and the cluster token a meta may require on every call.
      secret = !token.isBlank() ? token : Optional.ofNullable(System.getenv(ClusterToken.ENV)).orElse("").strip();
      if (secret.isEmpty()) {
        secret = config.get(ProcessOptions.TOKEN);
      }
      settings = new OptimizerSettings(group, threads, resourceId, secret, idlePoll);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid optimizer settings: " + e.getMessage());
    }
    ObjectStore objects;
    try {
      objects = ProcessOptions.objectStore(config);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid configuration: " + e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    Optional<ClusterToken> callToken = ClusterToken.resolve(token);
    if (callToken.isEmpty() && !config.get(ProcessOptions.TOKEN).isBlank()) {
      callToken = Optional.of(ClusterToken.of(config.get(ProcessOptions.TOKEN)));
    }
    ManagedChannel channel = Dial.to(address.toString(), callToken).build();
    OptimizerInstance instance = OptimizerInstance.start(channel, objects, settings);
    out.println("optimizer " + instance.instanceId() + " registered in group '" + group + "' with " + threads
        + (threads == 1 ? " thread" : " threads") + " at " + address);
    out.flush();
    AtomicBoolean closed = new AtomicBoolean();
    Runnable close = () -> {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      instance.close(); // unregisters: meta hands this instance's tasks to another at once
      channel.shutdownNow();
      if (objects instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          LOG.warn("optimizer {}: closing the object store failed: {}", instance.instanceId(), e.toString());
        }
      }
    };
    GracefulStop.onTermSignal("optimizer", () -> {
      close.run();
      out.println("optimizer " + instance.instanceId() + " stopped: unregistered, its tasks handed back to meta");
      out.flush();
      return true;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(close, "optimizer-shutdown"));
    new CountDownLatch(1).await(); // until a signal's graceful stop exits the process
    return TideCli.EXIT_OK;
  }

  /** The cluster config: the {@code --config} file, then {@code --set}, then {@code --data-dir} and {@code --objects}. */
  private Config config() {
    Map<String, String> overrides = new LinkedHashMap<>(set);
    ProcessFlags.flag(overrides, ProcessOptions.DATA_DIR.key(), dataDir);
    ProcessFlags.flag(overrides, ProcessOptions.OBJECT_STORE_DIR.key(), objectsDir);
    try {
      return ProcessOptions.load(configFile, overrides);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid configuration: " + e.getMessage());
    }
  }
}

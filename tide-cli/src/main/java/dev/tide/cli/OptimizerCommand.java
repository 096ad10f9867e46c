package dev.tide.cli;

import dev.tide.cluster.Dial;
import dev.tide.cli.ctl.MetaAddress;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.optimizer.worker.OptimizerInstance;
import dev.tide.optimizer.worker.OptimizerSettings;
import dev.tide.storage.object.LocalObjectStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.object.S3Config;
import dev.tide.storage.object.S3ObjectStore;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tide optimizer}: an optimizer instance process. It registers with meta's optimizer service,
 * runs compaction tasks on K threads against the cluster's object store, and runs until killed (it
 * unregisters on a normal shutdown, so its tasks go back to PLANNED at once).
 *
 * <p>The object store is the compute nodes': {@code --objects DIR} for a local directory, or the
 * {@code s3.*} keys of the {@code --config} properties file for S3 (see {@link S3Config}).
 */
@Command(name = "optimizer", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Runs an optimizer instance: K threads that compact state-store tables for meta.")
final class OptimizerCommand implements Callable<Integer> {
  static final ConfigOption<String> OBJECTS_DIR = ConfigOption.stringOption("objects.dir", "",
      "Local directory of the object store (the compute nodes' objects directory).");

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

  @Option(names = "--objects", paramLabel = "DIR", description = "Local-directory object store (overrides objects.dir of --config).")
  Path objectsDir;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Properties file: objects.dir, or the s3.* keys of an S3 object store.")
  Path configFile;

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
    OptimizerSettings settings;
    try {
      // One secret for both: the registration token, and the cluster token a meta may require on every call.
      String secret = !token.isBlank() ? token : Optional.ofNullable(System.getenv(ClusterToken.ENV)).orElse("").strip();
      settings = new OptimizerSettings(group, threads, resourceId, secret, idlePoll);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "Invalid optimizer settings: " + e.getMessage());
    }
    ObjectStore objects = objectStore();
    PrintWriter out = spec.commandLine().getOut();
    ManagedChannel channel = Dial.to(address.toString(), ClusterToken.resolve(token)).build();
    OptimizerInstance instance = OptimizerInstance.start(channel, objects, settings);
    out.println("optimizer " + instance.instanceId() + " registered in group '" + group + "' with " + threads
        + (threads == 1 ? " thread" : " threads") + " at " + address);
    out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      instance.close();
      channel.shutdownNow();
      if (objects instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception ignored) {
          // shutting down
        }
      }
      stopped.countDown();
    }, "optimizer-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    stopped.await();
    return TideCli.EXIT_OK;
  }

  private ObjectStore objectStore() {
    Map<String, String> raw = new TreeMap<>();
    if (configFile != null) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(configFile)) {
        p.load(in);
      } catch (IOException e) {
        throw new ParameterException(spec.commandLine(), "Invalid value for option '--config': cannot read '" + configFile + "': " + e);
      }
      p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k)));
    }
    List<ConfigOption<?>> known = new ArrayList<>(S3Config.ALL);
    known.add(OBJECTS_DIR);
    Config config;
    try {
      config = Config.parse(raw, known);
    } catch (ConfigException e) {
      throw new ParameterException(spec.commandLine(), "Invalid --config file '" + configFile + "': " + e.getMessage());
    }
    String dir = objectsDir != null ? objectsDir.toString() : config.get(OBJECTS_DIR);
    boolean s3 = config.isSet(S3Config.BUCKET);
    if (!dir.isEmpty() && s3) {
      throw new ParameterException(spec.commandLine(), "both a local object directory ('" + dir + "') and s3.bucket are given;"
          + " use one object store: --objects DIR (or objects.dir) or the s3.* keys of --config");
    }
    if (dir.isEmpty() && !s3) {
      throw new ParameterException(spec.commandLine(), "no object store: give --objects DIR (the compute nodes' objects"
          + " directory) or an S3 bucket (s3.bucket) in --config FILE");
    }
    if (!dir.isEmpty()) {
      return new LocalObjectStore(Path.of(dir));
    }
    try {
      return S3ObjectStore.open(S3Config.from(config));
    } catch (ConfigException e) {
      throw new ParameterException(spec.commandLine(), "Invalid --config file '" + configFile + "': " + e.getMessage());
    }
  }
}

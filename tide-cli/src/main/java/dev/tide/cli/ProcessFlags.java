package dev.tide.cli;

import dev.tide.cluster.ProcessOptions;
import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.Config;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Flags every cluster process takes: a config file, single overrides, and the cluster token. */
final class ProcessFlags {
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Properties file with cluster options (see 'tide options'); flags override it.")
  Path configFile;

  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Sets one option, e.g. --set heartbeat.timeout=5s (repeatable).")
  Map<String, String> set = new LinkedHashMap<>();

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Directory of the SQLite meta store and the local object store.")
  String dataDir;

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "Cluster token (default: $TIDE_TOKEN, else cluster.token of the config file).")
  String token;

  /**
   * The file's options, then {@code --set}, then the dedicated flags given in {@code flags}.
   *
   * @throws ParameterException (exit 2) naming the key, the value and the rule, for a bad key or value
   */
  Config config(Map<String, String> flags) {
    Map<String, String> overrides = new LinkedHashMap<>(set);
    if (dataDir != null) {
      overrides.put(ProcessOptions.DATA_DIR.key(), dataDir);
    }
    overrides.putAll(flags);
    try {
      return ProcessOptions.load(configFile, overrides);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), "Invalid configuration: " + e.getMessage());
    }
  }

  Optional<ClusterToken> token(Config config) {
    Optional<ClusterToken> t = ClusterToken.resolve(token);
    return t.isPresent() || config.get(ProcessOptions.TOKEN).isBlank() ? t : Optional.of(ClusterToken.of(config.get(ProcessOptions.TOKEN)));
  }

  /** Puts {@code value} under {@code key} when the flag was given. */
  static void flag(Map<String, String> m, String key, Object value) {
    if (value != null) {
      m.put(key, String.valueOf(value));
    }
  }
}

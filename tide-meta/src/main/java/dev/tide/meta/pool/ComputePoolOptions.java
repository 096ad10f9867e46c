package dev.tide.meta.pool;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.optimizer.dra.Terms;
import dev.tide.optimizer.group.GroupConfig;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.provider.LocalProcessProvider;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Options of meta's compute pool ({@code compute-pool.*}): which provider launches compute nodes and
 * the keeper's semantics, the optimizer groups' dynamic allocation counted in slots. They become the
 * properties of the pool's one group, {@value #POOL}, checked by {@link GroupConfig} (min ≤ max, idle
 * timeout, …) with errors naming these keys.
 */
public final class ComputePoolOptions {
  /** The name of the compute pool (its group, its decisions' scope {@code pool:compute}). */
  public static final String POOL = "compute";
  /** {@link #PROVIDER} value: no compute pool. */
  public static final String NONE = "none";

  public static final ConfigOption<String> PROVIDER = ConfigOption.stringOption("compute-pool.provider", NONE,
      "Who launches compute nodes when the jobs want more slots than the cluster has: none (the pool is off), in-process"
          + " (the embedded cluster), local (tide compute child processes of meta) or kubernetes (a Deployment per node, with"
          + " the optimizer.kubernetes.* settings).")
      .withRule(v -> Set.of(NONE, "in-process", "local", "kubernetes").contains(v), "one of none, in-process, local, kubernetes");
  public static final ConfigOption<Integer> NODE_SLOTS = ConfigOption.intOption("compute-pool.node-slots", 2,
      "Slots of each compute node the pool launches.").withRule(v -> v >= 1 && v <= 256, "between 1 and 256");
  public static final ConfigOption<Integer> MIN_SLOTS = ConfigOption.intOption("compute-pool.min-slots", 0,
      "The floor: slots the cluster keeps (nodes started by hand count), topped up at once.").withRule(v -> v >= 0, "at least 0");
  public static final ConfigOption<Integer> MAX_SLOTS = ConfigOption.intOption("compute-pool.max-slots", 16,
      "The cap: slots of the cluster (nodes started by hand count) above which the pool launches nothing.")
      .withRule(v -> v >= 1 && v <= GroupConfig.MAX_PARALLELISM_LIMIT, "between 1 and " + GroupConfig.MAX_PARALLELISM_LIMIT);
  public static final ConfigOption<Duration> BACKLOG_TIMEOUT = ConfigOption.durationOption("compute-pool.backlog-timeout",
      Duration.ofSeconds(10), "How long the jobs must want more slots than the cluster has before the first node is requested.");
  public static final ConfigOption<Duration> SUSTAINED_TIMEOUT = ConfigOption.durationOption("compute-pool.sustained-timeout",
      Duration.ofSeconds(10), "Spacing of further requests while the demand lasts (each doubles the ramp).");
  public static final ConfigOption<Duration> IDLE_TIMEOUT = ConfigOption.durationOption("compute-pool.idle-timeout",
      Duration.ofMinutes(2), "A launched node whose slots the jobs have not needed for this long is drained and released"
          + " (at least 30s).");
  public static final ConfigOption<Duration> SCALE_DOWN_COOLDOWN = ConfigOption.durationOption("compute-pool.scale-down-cooldown",
      Duration.ofMinutes(1), "Minimum time between two drains.");
  public static final ConfigOption<Duration> DRAIN_TIMEOUT = ConfigOption.durationOption("compute-pool.drain-timeout",
      Duration.ofMinutes(10), "A draining node still hosting actors after this long is released anyway (its actors recover).");
  public static final ConfigOption<Duration> BOOT_DEADLINE = ConfigOption.durationOption("compute-pool.boot-deadline",
      Duration.ofMinutes(2), "A requested node that has not registered within this time is released and no longer counted.");
  public static final ConfigOption<String> JVM_OPTIONS = ConfigOption.stringOption("compute-pool.jvm-options", "",
      "Options of the JVMs of local compute nodes, separated by whitespace, e.g. -Xmx1g.");

  public static final List<ConfigOption<?>> ALL = List.of(PROVIDER, NODE_SLOTS, MIN_SLOTS, MAX_SLOTS, BACKLOG_TIMEOUT,
      SUSTAINED_TIMEOUT, IDLE_TIMEOUT, SCALE_DOWN_COOLDOWN, DRAIN_TIMEOUT, BOOT_DEADLINE, JVM_OPTIONS);

  /** Pool option → the group property it sets. */
  private static final Map<ConfigOption<?>, String> PROPERTY = Map.of(
      NODE_SLOTS, GroupConfig.EXECUTOR_PARALLELISM.key(),
      MIN_SLOTS, GroupConfig.MIN_PARALLELISM.key(),
      MAX_SLOTS, GroupConfig.MAX_PARALLELISM.key(),
      BACKLOG_TIMEOUT, GroupConfig.SCHEDULER_BACKLOG_TIMEOUT.key(),
      SUSTAINED_TIMEOUT, GroupConfig.SUSTAINED_BACKLOG_TIMEOUT.key(),
      IDLE_TIMEOUT, GroupConfig.EXECUTOR_IDLE_TIMEOUT.key(),
      SCALE_DOWN_COOLDOWN, GroupConfig.SCALE_DOWN_COOLDOWN.key(),
      DRAIN_TIMEOUT, GroupConfig.DRAIN_TIMEOUT.key(),
      BOOT_DEADLINE, GroupConfig.BOOT_DEADLINE.key());

  /** The pool's decisions speak of nodes and slots, and cite these options instead of the group's. */
  public static final Terms TERMS = new Terms("node", "slot", Map.of(
      "min-parallelism", MIN_SLOTS.key(), "max-parallelism", MAX_SLOTS.key(),
      "executor-idle-timeout", IDLE_TIMEOUT.key(), "scale-down-cooldown", SCALE_DOWN_COOLDOWN.key(),
      "drain-timeout", DRAIN_TIMEOUT.key()));

  private ComputePoolOptions() {}

  /** Whether {@code config} turns the pool on. */
  public static boolean enabled(Config config) {
    return !config.get(PROVIDER).equals(NONE);
  }

  /**
   * The pool's group: dynamic allocation on, with the properties these options set, checked.
   *
   * @throws ConfigException naming the {@code compute-pool.*} key when the combination is invalid (min above max, …)
   */
  public static GroupDefinition definition(Config config) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(GroupConfig.ENABLED.key(), "true");
    for (Map.Entry<ConfigOption<?>, String> e : PROPERTY.entrySet()) {
      props.put(e.getValue(), render(config.get(e.getKey())));
    }
    if (!config.get(JVM_OPTIONS).isBlank()) {
      props.put(LocalProcessProvider.JVM_OPTIONS.key(), config.get(JVM_OPTIONS));
    }
    try {
      GroupConfig.parse(props, config.get(PROVIDER), List.of(LocalProcessProvider.JVM_OPTIONS));
    } catch (ConfigException e) {
      String poolKey = PROPERTY.entrySet().stream().filter(p -> p.getValue().equals(e.key())).map(p -> p.getKey().key()).findFirst()
          .orElse(e.key());
      throw new ConfigException(poolKey, e.getMessage().replace(e.key(), poolKey));
    }
    return GroupDefinition.of(POOL, config.get(PROVIDER), props);
  }

  private static String render(Object v) {
    return v instanceof Duration d ? d.toMillis() + "ms" : String.valueOf(v);
  }
}

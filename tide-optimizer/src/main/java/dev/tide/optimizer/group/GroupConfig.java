package dev.tide.optimizer.group;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The validated group-level configuration of an optimizer group: dynamic resource allocation (DRA),
 * planning and optimizer liveness. Every option is declared once below, with its unit and the rule
 * that applies to its value alone; rules between options are checked by {@link #parse} when they are
 * in use (DRA enabled, or a floor set). An instance always satisfies all rules: there is no other way
 * to build one.
 *
 * <p>A group's properties are these options plus the settings its resource provider declares
 * ({@code kubernetes.memory}, {@code local.jvm-options}, …); any other key is refused with the list of
 * the known ones, as the process configuration refuses an unknown option.
 *
 * <p>Thread-safety: immutable.
 */
public final class GroupConfig {
  /** The provider of hand-started optimizers, on which DRA is refused. */
  public static final String PROVIDER_EXTERNAL = "external";

  /** Upper bound of {@code dynamic-allocation.max-parallelism}. */
  public static final int MAX_PARALLELISM_LIMIT = 1024;
  /** Lower bound of {@code dynamic-allocation.executor-idle-timeout}. */
  public static final Duration MIN_EXECUTOR_IDLE_TIMEOUT = Duration.ofSeconds(30);

  /** One declared option with what the docs table shows beside it. Declared once, in table order. */
  public record Declaration(ConfigOption<?> option, String unit, String whenEnabled) {}

  private static final List<Declaration> DECLARATIONS = new ArrayList<>();

  public static final ConfigOption<Boolean> ENABLED = declare(
      ConfigOption.boolOption("dynamic-allocation.enabled", false,
          "Size the group's optimizer instances by demand (scale keeper) instead of by hand."),
      "boolean", "not on provider `external`");
  public static final ConfigOption<Integer> MIN_PARALLELISM = declare(
      ConfigOption.intOption("dynamic-allocation.min-parallelism", 0,
          "Floor of optimizer threads, kept without any timing gate.")
          .withRule(v -> v >= 0, "at least 0"),
      "threads", "≤ max-parallelism; ceil(min/K)·K ≤ max-parallelism (also with DRA off, once max-parallelism is set)");
  public static final ConfigOption<Integer> MAX_PARALLELISM = declare(
      ConfigOption.intOption("dynamic-allocation.max-parallelism", null,
          "Cap of optimizer threads (requested instances included); the cap always wins.")
          .withRule(v -> v >= 1 && v <= MAX_PARALLELISM_LIMIT, "between 1 and " + MAX_PARALLELISM_LIMIT),
      "threads", "required; ≥ min-parallelism");
  public static final ConfigOption<Integer> EXECUTOR_PARALLELISM = declare(
      ConfigOption.intOption("dynamic-allocation.executor-parallelism", 1,
          "Threads per optimizer instance (K): the scaling unit.")
          .withRule(v -> v >= 1, "at least 1"),
      "threads per instance", "≤ max-parallelism");
  public static final ConfigOption<Duration> SCHEDULER_BACKLOG_TIMEOUT = declare(
      positive(ConfigOption.durationOption("dynamic-allocation.scheduler-backlog-timeout", Duration.ofMinutes(1),
          "How long demand must persist before the first scale-out of an episode.")),
      "duration", "");
  public static final ConfigOption<Duration> SUSTAINED_BACKLOG_TIMEOUT = declare(
      positive(ConfigOption.durationOption("dynamic-allocation.sustained-backlog-timeout", Duration.ofSeconds(30),
          "Spacing of later scale-outs while demand persists.")),
      "duration", "≤ executor-idle-timeout / 2");
  public static final ConfigOption<Duration> EXECUTOR_IDLE_TIMEOUT = declare(
      ConfigOption.durationOption("dynamic-allocation.executor-idle-timeout", Duration.ofMinutes(5),
          "How long an instance must have had nothing in flight before it may be drained.")
          .withRule(d -> d.compareTo(MIN_EXECUTOR_IDLE_TIMEOUT) >= 0, "at least " + Durations.format(MIN_EXECUTOR_IDLE_TIMEOUT)),
      "duration", "");
  public static final ConfigOption<Duration> SCALE_DOWN_COOLDOWN = declare(
      positive(ConfigOption.durationOption("dynamic-allocation.scale-down-cooldown", Duration.ofMinutes(1),
          "Minimum time between two drain starts of the group.")),
      "duration", "");
  public static final ConfigOption<Duration> DRAIN_TIMEOUT = declare(
      positive(ConfigOption.durationOption("dynamic-allocation.drain-timeout", Duration.ofMinutes(15),
          "How long a draining instance may keep tasks in flight before it is removed anyway.")),
      "duration", "");
  public static final ConfigOption<Duration> BOOT_DEADLINE = declare(
      positive(ConfigOption.durationOption("dra.boot-deadline", Duration.ofMinutes(3),
          "How long a requested instance counts as capacity before it must have registered.")),
      "duration", "");
  public static final ConfigOption<Integer> MAX_PLANNING_PARALLELISM = declare(
      ConfigOption.intOption("optimizer.max-planning-parallelism", 1,
          "How many tables of the group may plan at once.")
          .withRule(v -> v >= 1, "at least 1"),
      "tables", "");
  public static final ConfigOption<Duration> HEART_BEAT_TIMEOUT = declare(
      positive(ConfigOption.durationOption("optimizer.heart-beat-timeout", Duration.ofMinutes(1),
          "An optimizer instance without a heartbeat for this long expires; its tasks go back to PLANNED.")),
      "duration", "");
  public static final ConfigOption<Duration> TASK_ACK_TIMEOUT = declare(
      positive(ConfigOption.durationOption("optimizer.task-ack-timeout", Duration.ofSeconds(30),
          "A task scheduled but not acknowledged for this long goes back to PLANNED.")),
      "duration", "");

  private final String provider;
  private final Config values;

  private GroupConfig(String provider, Config values) {
    this.provider = provider;
    this.values = values;
  }

  private static <T> ConfigOption<T> declare(ConfigOption<T> option, String unit, String whenEnabled) {
    for (Declaration d : DECLARATIONS) {
      if (d.option().key().equals(option.key())) {
        throw new IllegalStateException("option '" + option.key() + "' declared twice");
      }
    }
    DECLARATIONS.add(new Declaration(option, unit, whenEnabled));
    return option;
  }

  private static ConfigOption<Duration> positive(ConfigOption<Duration> o) {
    return o.withRule(d -> d.toMillis() > 0, "greater than 0ms");
  }

  /** The declarations in table order. */
  public static List<Declaration> declarations() {
    return Collections.unmodifiableList(DECLARATIONS);
  }

  /** The declared options. */
  public static List<ConfigOption<?>> options() {
    return DECLARATIONS.stream().<ConfigOption<?>>map(Declaration::option).toList();
  }

  /** {@link #parse(Map, String, Collection)} for a provider that declares no settings of its own. */
  public static GroupConfig parse(Map<String, String> props, String provider) {
    return parse(props, provider, List.of());
  }

  /**
   * Parses and validates the properties of a group on {@code provider}, whose own settings are
   * {@code providerOptions}. Every key must be declared by one or the other; single values are always
   * checked; combinations when they are in use: all of them with DRA enabled, the floor's (whole
   * instances of K threads within the cap) whenever a floor is set, since the floor-only keeper keeps it
   * without DRA too. A disabled group may otherwise keep a half-edited setup.
   *
   * @throws ConfigException naming the property, the value and the rule broken (the first in key order
   *     for single values, then the combinations in declaration order)
   */
  public static GroupConfig parse(Map<String, String> props, String provider, Collection<ConfigOption<?>> providerOptions) {
    Objects.requireNonNull(props, "props");
    if (provider == null || provider.isBlank()) {
      throw new IllegalArgumentException("group configuration needs a resource provider name, got '" + provider + "'");
    }
    List<ConfigOption<?>> known = new ArrayList<>(options());
    known.addAll(providerOptions);
    Config.parse(props, known); // unknown keys and every single value, the provider's settings included
    Map<String, String> ours = new TreeMap<>();
    for (Map.Entry<String, String> e : props.entrySet()) {
      if (DECLARATIONS.stream().anyMatch(d -> d.option().key().equals(e.getKey()))) {
        ours.put(e.getKey(), e.getValue());
      }
    }
    GroupConfig c = new GroupConfig(provider, Config.parse(ours, options()));
    c.validateCombinations();
    return c;
  }

  /** A configuration that was stored earlier and is being loaded; invalid means DRA is treated as disabled. */
  public record Loaded(GroupConfig config, Optional<String> invalidReason) {
    public boolean invalid() {
      return invalidReason.isPresent();
    }
  }

  /**
   * Loads a stored configuration. One that no longer validates is never half-applied: the result is
   * the all-defaults configuration (DRA disabled) and the reason, for the config-invalid gauge.
   */
  public static Loaded loadStored(Map<String, String> props, String provider, Collection<ConfigOption<?>> providerOptions) {
    try {
      return new Loaded(parse(props, provider, providerOptions), Optional.empty());
    } catch (ConfigException e) {
      return new Loaded(parse(Map.of(), provider), Optional.of(e.getMessage()));
    }
  }

  private void validateCombinations() {
    int k = executorParallelism();
    int min = minParallelism();
    if (!draEnabled()) {
      if (min > 0 && values.isSet(MAX_PARALLELISM)) {
        checkFloorFits(min, k, values.get(MAX_PARALLELISM));
      }
      return;
    }
    if (provider.equals(PROVIDER_EXTERNAL)) {
      throw new ConfigException(ENABLED.key(), "true",
          "false on provider '" + PROVIDER_EXTERNAL + "': its optimizers are started by hand, the keeper cannot request or release them");
    }
    if (!values.isSet(MAX_PARALLELISM)) {
      throw new ConfigException(MAX_PARALLELISM.key(),
          "missing: required when " + ENABLED.key() + " is true (" + MAX_PARALLELISM.ruleText() + ")");
    }
    int max = values.get(MAX_PARALLELISM);
    if (k > max) {
      throw new ConfigException(EXECUTOR_PARALLELISM.key(), String.valueOf(k),
          "at most " + MAX_PARALLELISM.key() + " (" + max + "): a single instance would already exceed the cap");
    }
    checkFloorFits(min, k, max);
    Duration sustained = sustainedBacklogTimeout();
    Duration idle = executorIdleTimeout();
    if (sustained.toMillis() > idle.toMillis() / 2) {
      throw new ConfigException(SUSTAINED_BACKLOG_TIMEOUT.key(), Durations.format(sustained),
          "at most " + EXECUTOR_IDLE_TIMEOUT.key() + " / 2 (" + Durations.format(idle) + " / 2 = "
              + Durations.format(Duration.ofMillis(idle.toMillis() / 2)) + ")");
    }
  }

  /** The floor, in whole instances of K threads, fits under the cap. */
  private static void checkFloorFits(int min, int k, int max) {
    if (min > max) {
      throw new ConfigException(MIN_PARALLELISM.key(), String.valueOf(min), "at most " + MAX_PARALLELISM.key() + " (" + max + ")");
    }
    long floorThreads = (long) ceilDiv(min, k) * k;
    if (floorThreads > max) {
      throw new ConfigException(MIN_PARALLELISM.key(), String.valueOf(min),
          "such that ceil(min/K)·K ≤ " + MAX_PARALLELISM.key() + ": whole instances of K=" + k + " threads reach "
              + floorThreads + " > " + max);
    }
  }

  static int ceilDiv(int a, int b) {
    return -Math.floorDiv(-a, b);
  }

  /**
   * The options table for the docs, generated from the declarations: key, default, unit, rule for the
   * value alone, rule when DRA is enabled, description.
   */
  public static String optionsMarkdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("| property | default | unit | value | when enabled | description |\n");
    sb.append("|---|---|---|---|---|---|\n");
    for (Declaration d : DECLARATIONS) {
      ConfigOption<?> o = d.option();
      Object def = o.defaultValue();
      String defText = def == null ? "required" : def instanceof Duration dur ? Durations.format(dur) : def.toString();
      sb.append("| `").append(o.key()).append("` | ").append(defText).append(" | ").append(d.unit())
          .append(" | ").append(o.ruleText()).append(" | ").append(d.whenEnabled().isEmpty() ? "" : d.whenEnabled())
          .append(" | ").append(o.description()).append(" |\n");
    }
    return sb.toString();
  }

  public String provider() {
    return provider;
  }

  public boolean draEnabled() {
    return values.get(ENABLED);
  }

  public int minParallelism() {
    return values.get(MIN_PARALLELISM);
  }

  /** The cap, if set; always set when DRA is enabled. */
  public OptionalInt maxParallelismIfSet() {
    return values.isSet(MAX_PARALLELISM) ? OptionalInt.of(values.get(MAX_PARALLELISM)) : OptionalInt.empty();
  }

  /** The cap in threads. @throws IllegalStateException when unset (only possible with DRA disabled) */
  public int maxParallelism() {
    if (!values.isSet(MAX_PARALLELISM)) {
      throw new IllegalStateException(MAX_PARALLELISM.key() + " is not set (dynamic allocation is disabled)");
    }
    return values.get(MAX_PARALLELISM);
  }

  public int executorParallelism() {
    return values.get(EXECUTOR_PARALLELISM);
  }

  public Duration schedulerBacklogTimeout() {
    return values.get(SCHEDULER_BACKLOG_TIMEOUT);
  }

  public Duration sustainedBacklogTimeout() {
    return values.get(SUSTAINED_BACKLOG_TIMEOUT);
  }

  public Duration executorIdleTimeout() {
    return values.get(EXECUTOR_IDLE_TIMEOUT);
  }

  public Duration scaleDownCooldown() {
    return values.get(SCALE_DOWN_COOLDOWN);
  }

  public Duration drainTimeout() {
    return values.get(DRAIN_TIMEOUT);
  }

  public Duration bootDeadline() {
    return values.get(BOOT_DEADLINE);
  }

  public int maxPlanningParallelism() {
    return values.get(MAX_PLANNING_PARALLELISM);
  }

  public Duration heartBeatTimeout() {
    return values.get(HEART_BEAT_TIMEOUT);
  }

  public Duration taskAckTimeout() {
    return values.get(TASK_ACK_TIMEOUT);
  }

  /** Value equality over the provider and every option's effective value. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof GroupConfig other) || !provider.equals(other.provider)) {
      return false;
    }
    for (Declaration d : DECLARATIONS) {
      if (!Objects.equals(values.get(d.option()), other.values.get(d.option()))
          || values.isSet(d.option()) != other.values.isSet(d.option())) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = provider.hashCode();
    for (Declaration d : DECLARATIONS) {
      h = 31 * h + Objects.hashCode(values.get(d.option()));
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("GroupConfig{provider=").append(provider);
    for (Declaration d : DECLARATIONS) {
      Object v = values.get(d.option());
      if (v != null) {
        sb.append(", ").append(d.option().key()).append('=').append(v instanceof Duration dur ? Durations.format(dur) : v);
      }
    }
    return sb.append('}').toString();
  }
}

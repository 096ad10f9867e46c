package dev.tide.meta;

import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.List;

/** Options of the meta role, declared once. */
public final class MetaOptions {
  public static final ConfigOption<Duration> BARRIER_INTERVAL = ConfigOption.durationOption("barrier.interval", Duration.ofSeconds(1),
      "Time between two checkpoint barriers injected into every source.")
      .withRule(d -> d.toMillis() >= 10 && d.toMillis() <= 600_000, "between 10ms and 10min");
  public static final ConfigOption<Integer> MAX_INFLIGHT_BARRIERS = ConfigOption.intOption("barrier.max-inflight", 8,
      "Barriers injected but not yet committed before injection waits.")
      .withRule(v -> v >= 1 && v <= 1000, "between 1 and 1000");
  public static final ConfigOption<Integer> DEFAULT_PARALLELISM = ConfigOption.intOption("job.default-parallelism", 0,
      "Actors per fragment of a new job; 0 uses every slot of the cluster (capped by the vnode count).")
      .withRule(v -> v >= 0 && v <= 32768, "0 (all slots) or between 1 and 32768");
  public static final ConfigOption<Integer> VNODE_COUNT = ConfigOption.intOption("job.vnode-count", 256,
      "Vnodes of a new job: the most actors a fragment can have.")
      .withRule(v -> v >= 1 && v <= 32768, "between 1 and 32768");

  public static final ConfigOption<Duration> SETTLE_DELAY = ConfigOption.durationOption("scaling.settle-delay", Duration.ofSeconds(5),
      "After a worker joins or starts draining, how long membership must stay unchanged before jobs are rescheduled onto it or off it.")
      .withRule(d -> !d.isNegative() && d.toMillis() <= 3_600_000, "between 0 and 1h");
  public static final ConfigOption<Integer> RESCHEDULE_BATCH = ConfigOption.intOption("scaling.batch-jobs", 2,
      "Most jobs rescheduled per round after a membership change (bounded batches).")
      .withRule(v -> v >= 1 && v <= 1000, "between 1 and 1000");

  public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOption.durationOption("heartbeat.interval", Duration.ofSeconds(1),
      "How often a compute node tells meta it is alive.")
      .withRule(d -> d.toMillis() >= 10 && d.toMillis() <= 60_000, "between 10ms and 1min");
  public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT = ConfigOption.durationOption("heartbeat.timeout", Duration.ofSeconds(10),
      "A compute node without a heartbeat for this long is declared lost: its actors are recovered onto the others.")
      .withRule(d -> d.toMillis() >= 100 && d.toMillis() <= 3_600_000, "between 100ms and 1h");

  public static final List<ConfigOption<?>> ALL = List.of(BARRIER_INTERVAL, MAX_INFLIGHT_BARRIERS, DEFAULT_PARALLELISM, VNODE_COUNT,
      SETTLE_DELAY, RESCHEDULE_BATCH, HEARTBEAT_INTERVAL, HEARTBEAT_TIMEOUT);

  private MetaOptions() {}
}

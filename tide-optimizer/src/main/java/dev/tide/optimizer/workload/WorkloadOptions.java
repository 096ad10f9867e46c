package dev.tide.optimizer.workload;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigOption;
import java.time.Duration;
import java.util.List;

/**
 * Options of the optimizing workload (meta level, shared by every group), declared once. Group-level
 * liveness and planning options ({@code optimizer.heart-beat-timeout}, {@code optimizer.task-ack-timeout},
 * {@code optimizer.max-planning-parallelism}) live in {@link dev.tide.optimizer.group.GroupConfig}.
 *
 * @param l0Files a table with at least this many L0 SSTs becomes PENDING
 * @param l0Bytes a table with at least this many bytes in L0 becomes PENDING
 * @param taskInputBytes input bytes per task when a table's compaction is split into key ranges
 * @param maxTasksPerTable most tasks one table's compaction is split into
 * @param maxAttempts attempts of a task before its table's compaction is abandoned
 * @param targetFileBytes size at which compaction output files are cut
 * @param deleteGraceMs how long an SST no reader pins is kept after the version that dropped it was
 *     installed everywhere (covers point reads, which do not pin)
 * @param objectPrefix object-path prefix of SSTs (outputs go to {@code prefix/<id>.sst})
 * @param registerToken secret an optimizer must present to register; empty for none
 * @param packingWindowMs how long a new task is kept for the earliest-registered instance of its group
 *     before any instance may take it; 0 turns packing off
 */
public record WorkloadOptions(int l0Files, long l0Bytes, long taskInputBytes, int maxTasksPerTable, int maxAttempts,
    long targetFileBytes, long deleteGraceMs, String objectPrefix, String registerToken, long packingWindowMs) {
  public static final ConfigOption<Integer> L0_FILES = ConfigOption.intOption("optimizer.trigger.l0-files", 8,
      "A table with at least this many L0 SSTs becomes PENDING (needs compaction).")
      .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Long> L0_BYTES = ConfigOption.longOption("optimizer.trigger.l0-bytes", 256L << 20,
      "A table with at least this many bytes of L0 SSTs becomes PENDING.")
      .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Long> TASK_INPUT_BYTES = ConfigOption.longOption("optimizer.task.input-bytes", 64L << 20,
      "Input bytes per task: a table's compaction is split into this many bytes' worth of vnode ranges.")
      .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Integer> MAX_TASKS_PER_TABLE = ConfigOption.intOption("optimizer.task.max-per-table", 8,
      "Most tasks (vnode ranges) one table's compaction is split into.")
      .withRule(v -> v >= 1 && v <= 1024, "between 1 and 1024");
  public static final ConfigOption<Integer> MAX_ATTEMPTS = ConfigOption.intOption("optimizer.task.max-attempts", 3,
      "Failed attempts of a task before its table's compaction is abandoned (the table goes back to PENDING).")
      .withRule(v -> v >= 1 && v <= 100, "between 1 and 100");
  public static final ConfigOption<Long> TARGET_FILE_BYTES = ConfigOption.longOption("optimizer.output.target-file-bytes", 64L << 20,
      "Size at which compaction output SSTs are cut.")
      .withRule(v -> v >= 1, "at least 1");
  public static final ConfigOption<Duration> DELETE_GRACE = ConfigOption.durationOption("optimizer.sst-delete-grace", Duration.ofSeconds(30),
      "How long an SST dropped from the version is kept after every reader moved past it (point reads do not pin).")
      .withRule(d -> !d.isNegative(), "0 or more");
  public static final ConfigOption<String> OBJECT_PREFIX = ConfigOption.stringOption("optimizer.object-prefix", "state",
      "Object-path prefix of state-store SSTs, the same as the compute nodes'.")
      .withRule(p -> !p.isEmpty() && !p.startsWith("/") && !p.endsWith("/"), "a non-empty path without a leading or trailing '/', like 'state'");
  public static final ConfigOption<String> REGISTER_TOKEN = ConfigOption.stringOption("optimizer.register-token", "",
      "Secret an optimizer must present to register; empty accepts any.");

  public static final ConfigOption<Duration> PACKING_WINDOW = ConfigOption.durationOption("optimizer.packing-window", Duration.ofSeconds(1),
      "A new task goes at once only to the earliest-registered instance of its group; the others may take it once it has waited"
          + " this long. Short tasks then stay on the first instance and a light load leaves the others idle, so the scale keeper"
          + " can release them; a backlog still reaches every instance, one window later. 0 hands a task to whichever thread polls"
          + " first.")
      .withRule(d -> !d.isNegative() && d.compareTo(Duration.ofMinutes(1)) <= 0, "between 0 and 1min");

  public static final List<ConfigOption<?>> ALL = List.of(L0_FILES, L0_BYTES, TASK_INPUT_BYTES, MAX_TASKS_PER_TABLE, MAX_ATTEMPTS,
      TARGET_FILE_BYTES, DELETE_GRACE, OBJECT_PREFIX, REGISTER_TOKEN, PACKING_WINDOW);

  /** The options set in {@code config}, defaults elsewhere. */
  public static WorkloadOptions from(Config config) {
    return new WorkloadOptions(config.get(L0_FILES), config.get(L0_BYTES), config.get(TASK_INPUT_BYTES),
        config.get(MAX_TASKS_PER_TABLE), config.get(MAX_ATTEMPTS), config.get(TARGET_FILE_BYTES),
        config.get(DELETE_GRACE).toMillis(), config.get(OBJECT_PREFIX), config.get(REGISTER_TOKEN), config.get(PACKING_WINDOW).toMillis());
  }

  public static WorkloadOptions defaults() {
    return from(Config.defaults());
  }
}

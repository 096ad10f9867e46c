package dev.tide.optimizer.worker;

import java.time.Duration;
import java.util.Objects;

/**
 * How an optimizer instance presents itself and paces its threads.
 *
 * @param group the optimizer group it serves
 * @param threads K, the threads polling for tasks
 * @param resourceId the provider resource it runs in; empty when started by hand
 * @param token the registration secret meta may require; empty for none
 * @param idlePoll how long a thread waits after a poll that gave no task
 */
public record OptimizerSettings(String group, int threads, String resourceId, String token, Duration idlePoll) {
  public static final Duration DEFAULT_IDLE_POLL = Duration.ofMillis(500);

  public OptimizerSettings {
    Objects.requireNonNull(resourceId, "resourceId");
    Objects.requireNonNull(token, "token");
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException("optimizer group '" + group + "' must be a non-blank group name, like 'default'");
    }
    if (threads < 1 || threads > 1024) {
      throw new IllegalArgumentException("optimizer threads " + threads + " must be between 1 and 1024");
    }
    if (idlePoll.isNegative() || idlePoll.isZero()) {
      throw new IllegalArgumentException("optimizer idle poll interval " + idlePoll + " must be positive");
    }
  }

  /** An instance of {@code threads} threads in {@code group}, started by hand, no token. */
  public static OptimizerSettings of(String group, int threads) {
    return new OptimizerSettings(group, threads, "", "", DEFAULT_IDLE_POLL);
  }

  public OptimizerSettings withResourceId(String id) {
    return new OptimizerSettings(group, threads, id, token, idlePoll);
  }

  public OptimizerSettings withToken(String t) {
    return new OptimizerSettings(group, threads, resourceId, t, idlePoll);
  }

  public OptimizerSettings withIdlePoll(Duration d) {
    return new OptimizerSettings(group, threads, resourceId, token, d);
  }
}

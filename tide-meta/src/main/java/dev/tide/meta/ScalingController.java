package dev.tide.meta;

import dev.tide.common.time.Clock;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ScalingPolicy} periodically: snapshot → decide → submit each request through
 * {@link Meta#reschedule}, exactly the path a person's {@code tide ctl} request takes. A refused
 * request is logged and counted, never retried blindly: the next round decides afresh.
 */
public final class ScalingController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScalingController.class);

  private final Meta meta;
  private final ScalingPolicy policy;
  private final Clock clock;
  private final ScheduledExecutorService timer;
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  public ScalingController(Meta meta, ScalingPolicy policy, Clock clock) {
    this.meta = meta;
    this.policy = policy;
    this.clock = clock;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "scaling-controller");
      t.setDaemon(true);
      return t;
    });
  }

  /** Evaluates the policy every {@code periodMs}. */
  public void start(long periodMs) {
    timer.scheduleWithFixedDelay(this::round, periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  /** One evaluation: returns how many requests were applied. */
  public int round() {
    int done = 0;
    try {
      long now = clock.nowMillis();
      List<RescheduleRequest> requests = policy.decide(meta.snapshot(), now);
      for (RescheduleRequest r : requests) {
        try {
          if (meta.reschedule(r).applied()) {
            applied.incrementAndGet();
            done++;
          }
        } catch (IllegalArgumentException | IllegalStateException e) {
          refused.incrementAndGet();
          LOG.info("scaling policy request for job '{}' refused: {}", r.job(), e.getMessage());
          meta.events().record(now, "autoscaler", r.job(), "request refused: " + e.getMessage());
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("scaling policy round failed: {}", e.toString());
    }
    return done;
  }

  public long appliedRequests() {
    return applied.get();
  }

  public long refusedRequests() {
    return refused.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

package dev.tide.optimizer.keeper;

import dev.tide.common.time.ManualClock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler on a {@link ManualClock}: tasks run only inside {@link #runUntil}, on the calling thread,
 * in (due time, submission) order, with the clock set to each task's due time. No threads, no sleeps.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
  private final ManualClock clock;
  private final PriorityQueue<Task> queue = new PriorityQueue<>(
      Comparator.comparingLong((Task t) -> t.atMs).thenComparingLong(t -> t.seq));
  private long seq;
  private boolean shutdown;

  ManualScheduler(ManualClock clock) {
    this.clock = clock;
  }

  /** Runs every task due up to {@code atMs} (including those they schedule), then leaves the clock at {@code atMs}. */
  void runUntil(long atMs) {
    while (true) {
      Task t = queue.peek();
      if (t == null || t.atMs > atMs) {
        break;
      }
      queue.poll();
      if (t.cancelled) {
        continue;
      }
      clock.set(Math.max(clock.nowMillis(), t.atMs));
      t.done = true;
      t.task.run();
    }
    clock.set(Math.max(clock.nowMillis(), atMs));
  }

  /** Runs what is due now. */
  void runDue() {
    runUntil(clock.nowMillis());
  }

  /** Due times of the live scheduled tasks, earliest first. */
  List<Long> pendingTimes() {
    List<Long> out = new ArrayList<>();
    queue.stream().filter(t -> !t.cancelled).sorted(queue.comparator()).forEach(t -> out.add(t.atMs));
    return out;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Task t = new Task(command, clock.nowMillis() + unit.toMillis(delay), seq++);
    queue.add(t);
    return t;
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.MILLISECONDS);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void shutdown() {
    shutdown = true;
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }

  private static final class Task implements ScheduledFuture<Object> {
    final Runnable task;
    final long atMs;
    final long seq;
    boolean cancelled;
    boolean done;

    Task(Runnable task, long atMs, long seq) {
      this.task = task;
      this.atMs = atMs;
      this.seq = seq;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int compareTo(Delayed o) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      if (done) {
        return false;
      }
      cancelled = true;
      return true;
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }

    @Override
    public boolean isDone() {
      return done || cancelled;
    }

    @Override
    public Object get() {
      return null;
    }

    @Override
    public Object get(long timeout, TimeUnit unit) {
      return null;
    }
  }
}

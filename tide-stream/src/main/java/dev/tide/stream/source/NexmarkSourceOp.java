package dev.tide.stream.source;

import dev.tide.common.chunk.StreamChunk;
import dev.tide.common.config.Config;
import dev.tide.proto.plan.SourceNode;
import dev.tide.stream.actor.Barrier;
import dev.tide.stream.actor.SourceAlignment;
import dev.tide.stream.actor.SourceOperator;
import dev.tide.stream.actor.Watermark;
import dev.tide.stream.nexmark.NexmarkBatch;
import dev.tide.stream.nexmark.NexmarkConfig;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.operator.ActorContext;
import dev.tide.stream.state.StateTable;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Emits one Nexmark table from the actor's splits. Split {@code s} of {@code S} owns the table's
 * ordinals {@code s, s+S, s+2S, ...}; its offset (next ordinal) is saved in the source's state table
 * at every barrier, so recovery replays exactly the uncommitted suffix.
 *
 * <p>The {@code rate} option (and {@code rate-steps}, its changes over time) paces the whole event
 * stream (all tables): this source emits an event once the stream's clock, {@code rate} event ids
 * per second shared by the actors in proportion to their splits, has passed its event id. So
 * person, auction and bid sources of one job advance together. The clock runs from the job's
 * creation (wall time, so every actor of the job, on any node, follows one schedule): like a log,
 * events keep arriving while the job is paused or a reschedule is under way, and the source catches
 * up afterwards; {@link #backlog} is how far behind it is. A job without a creation time (built by
 * hand in a test) runs the clock from each actor's first emission. Emission starts at the first
 * barrier and stops while paused.
 *
 * <p>The source emits the table columns the node lists (all of them when it lists none), in that
 * order, and computes no others.
 *
 * <p>Watermark: when it emits {@code date_time}, on that column, the event time of the earliest
 * next event among its splits (event time grows with the event id, so no later row of a split is
 * earlier), less the {@code watermark-delay-ms} option; {@link Long#MAX_VALUE} once every split is
 * exhausted.
 *
 * <p>Alignment: the job's Nexmark sources on one node stay within {@code alignment-drift-ms} of
 * event time of each other ({@link SourceAlignment}): this source emits no event later than the
 * slowest one's next event plus the drift. A source whose offsets are not read yet does not count.
 */
public final class NexmarkSourceOp implements SourceOperator {
  private final NexmarkTable table;
  private final NexmarkGenerator generator;
  private final int splitCount;
  private final long limit;
  private final long rate;
  private final RateSchedule schedule;
  private final int stateTableId;
  private final ActorContext ctx;
  private final NexmarkBatch batch;
  private int[] splits;
  private long[] offsets;
  /** The offsets as the state table holds them: a barrier writes only the splits that moved since. */
  private long[] stored;
  private StateTable state;
  private boolean started;
  private boolean paused;
  private long baseEventId;
  private long baseNanos = -1;
  private int cursor;
  /** Output index of {@code date_time}, or -1 if not emitted. */
  private final int timeColumn;
  private long watermark = Long.MIN_VALUE;
  private final long watermarkDelayMs;
  private final long alignmentDriftMs;
  /** This actor's place in its job's alignment; null when not aligned. */
  private SourceAlignment.Member aligned;

  public NexmarkSourceOp(SourceNode node, ActorContext ctx) {
    Config options = NexmarkSourceOptions.parse(node.getOptionsMap());
    this.table = NexmarkTable.valueOf(node.getTable().toUpperCase(Locale.ROOT));
    this.generator = new NexmarkGenerator(NexmarkConfig.defaults()
        .withSeed(options.get(NexmarkSourceOptions.SEED))
        .withEventsPerSecond(options.get(NexmarkSourceOptions.EVENT_TIME_RATE)));
    this.splitCount = node.getSplitCount();
    long events = options.get(NexmarkSourceOptions.EVENTS);
    this.limit = events < 0 ? Long.MAX_VALUE : NexmarkGenerator.ordinalsBelow(table, events);
    this.rate = options.get(NexmarkSourceOptions.RATE);
    this.watermarkDelayMs = options.get(NexmarkSourceOptions.WATERMARK_DELAY_MS);
    this.alignmentDriftMs = options.get(NexmarkSourceOptions.ALIGNMENT_DRIFT_MS);
    this.schedule = RateSchedule.of(rate, options.get(NexmarkSourceOptions.RATE_STEPS));
    this.stateTableId = node.getStateTableId();
    this.ctx = ctx;
    int[] columns = node.getColumnsCount() == 0
        ? IntStream.range(0, table.schema().size()).toArray()
        : node.getColumnsList().stream().mapToInt(Integer::intValue).toArray();
    this.batch = generator.batch(table, columns, StreamChunk.DEFAULT_CAPACITY);
    int time = table.schema().indexOf(EVENT_TIME);
    int out = -1;
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] == time) {
        out = i;
      }
    }
    this.timeColumn = out;
  }

  /** How often a source held by alignment looks again (the others move on their own threads). */
  private static final long ALIGNMENT_POLL_NANOS = 1_000_000L;

  /** The event-time column of every Nexmark table. */
  public static final String EVENT_TIME = "date_time";

  @Override
  public Watermark pollWatermark() {
    if (timeColumn < 0 || !started || (offsets == null && splits.length > 0)) {
      return null;
    }
    long next = splits.length == 0 ? Long.MAX_VALUE : nextEventId();
    long w = next == Long.MAX_VALUE ? Long.MAX_VALUE : generator.config().eventTimeMillis(next) - watermarkDelayMs;
    if (w <= watermark) {
      return null;
    }
    watermark = w;
    return new Watermark(timeColumn, w);
  }

  @Override
  public void open() {
    state = ctx.table(stateTableId);
    paused = ctx.startsPaused();
    if (alignmentDriftMs > 0) {
      aligned = ctx.alignment().join();
    }
    updateSplits(ctx.splits());
  }

  @Override
  public void close() {
    if (aligned != null) {
      aligned.leave();
    }
  }

  @Override
  public void updateSplits(List<Integer> newSplits) {
    splits = newSplits.stream().mapToInt(Integer::intValue).toArray();
    offsets = null;
    cursor = 0;
    baseNanos = -1;
    report(); // not counted until its offsets are read
  }

  /** Tells the alignment where this source stands: its next event's time, or nothing to hold others by. */
  private void report() {
    if (aligned != null) {
      long next = offsets == null ? Long.MAX_VALUE : nextEventId();
      aligned.report(next == Long.MAX_VALUE ? Long.MAX_VALUE : generator.config().eventTimeMillis(next));
    }
  }

  /** Event ids below this may be emitted as far as alignment goes. */
  private long alignedBudget() {
    if (aligned == null) {
      return Long.MAX_VALUE;
    }
    long floor = aligned.floor();
    return floor == Long.MAX_VALUE ? Long.MAX_VALUE : generator.config().eventIdsUpTo(floor + alignmentDriftMs);
  }

  /** Reads the splits' committed offsets; called only once the actor may read state. */
  private void ensureLoaded() {
    if (offsets != null) {
      return;
    }
    offsets = new long[splits.length];
    for (int i = 0; i < splits.length; i++) {
      Object[] row = state.get(new Object[] {splits[i]});
      offsets[i] = row == null ? splits[i] : (Long) row[1];
    }
    stored = offsets.clone();
    report();
  }

  private boolean exhausted() {
    for (long o : offsets) {
      if (o < limit) {
        return false;
      }
    }
    return true;
  }

  /** Event ids below this may be emitted now. */
  private long budget(long nowNanos) {
    if (rate == 0) {
      return Long.MAX_VALUE;
    }
    if (ctx.jobCreatedMs() > 0) {
      return schedule.due(elapsedMs(nowNanos)) + 1;
    }
    if (baseNanos < 0) {
      baseNanos = nowNanos;
      baseEventId = nextEventId();
    }
    return baseEventId + schedule.due(elapsedMs(nowNanos)) + 1;
  }

  /** Time on the stream's clock: since the job's creation, or since this actor's first emission. */
  private long elapsedMs(long nowNanos) {
    return ctx.jobCreatedMs() > 0 ? ctx.clock().nowMillis() - ctx.jobCreatedMs() : (nowNanos - baseNanos) / 1_000_000;
  }

  /**
   * Rows of this actor's splits that are due and not yet emitted (rate-paced), or not yet emitted
   * at all (unpaced and bounded); -1 when unpaced and unbounded or before its offsets are read.
   */
  @Override
  public long backlog(long nowNanos) {
    if (!started || splits.length == 0) {
      return 0;
    }
    if (offsets == null || (rate == 0 && limit == Long.MAX_VALUE)) {
      return -1;
    }
    long due = rate == 0 ? limit : Math.min(limit, NexmarkGenerator.ordinalsBelow(table, budget(nowNanos)));
    long behind = 0;
    for (long o : offsets) {
      if (o < due) {
        behind += (due - o + splitCount - 1) / splitCount;
      }
    }
    return behind;
  }

  private long nextEventId() {
    long min = Long.MAX_VALUE;
    for (long o : offsets) {
      if (o < limit) {
        min = Math.min(min, NexmarkGenerator.eventId(table, o));
      }
    }
    return min;
  }

  @Override
  public StreamChunk next(long nowNanos) {
    if (!started || paused || splits.length == 0) {
      return null;
    }
    ensureLoaded();
    long budget = Math.min(budget(nowNanos), alignedBudget());
    int emptyRounds = 0;
    while (emptyRounds < splits.length) {
      int i = cursor;
      cursor = (cursor + 1) % splits.length;
      long o = offsets[i];
      if (o >= limit || (budget != Long.MAX_VALUE && NexmarkGenerator.eventId(table, o) >= budget)) {
        emptyRounds++;
        continue;
      }
      emptyRounds = 0;
      batch.add(o);
      offsets[i] = o + splitCount;
      if (batch.isFull()) {
        break;
      }
    }
    report();
    return batch.take();
  }

  @Override
  public long nanosUntilReady(long nowNanos) {
    if (!started || paused || splits.length == 0) {
      return Long.MAX_VALUE;
    }
    if (offsets == null) {
      return 0;
    }
    if (exhausted()) {
      return Long.MAX_VALUE;
    }
    if (nextEventId() >= alignedBudget()) {
      return ALIGNMENT_POLL_NANOS;
    }
    if (rate == 0) {
      return 0;
    }
    long ahead = nextEventId() - budget(nowNanos);
    return Math.max(1_000_000L, (long) (ahead * 1e9 / schedule.rateAt(elapsedMs(nowNanos))));
  }

  @Override
  public boolean ended() {
    return offsets != null && exhausted();
  }

  @Override
  public void onBarrier(Barrier barrier, Emitter out) {
    started = true;
    if (barrier.mutation() != null && barrier.mutation().hasUpdate()) {
      // Downstream actors forget watermarks at a reschedule: say it again, from the splits after it.
      watermark = Long.MIN_VALUE;
    }
    boolean wasPaused = paused;
    paused = barrier.pausedAfter(ctx.jobId(), paused);
    if (wasPaused && !paused && ctx.jobCreatedMs() == 0) {
      baseNanos = -1;
    }
    if (offsets != null) {
      for (int i = 0; i < splits.length; i++) {
        if (offsets[i] != stored[i]) {
          state.put(new Object[] {splits[i], offsets[i]});
          stored[i] = offsets[i];
        }
      }
    }
    state.commit(barrier.prevEpoch());
  }
}

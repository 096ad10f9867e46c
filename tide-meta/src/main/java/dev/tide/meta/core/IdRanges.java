package dev.tide.meta.core;

import dev.tide.meta.store.Counters;
import dev.tide.meta.store.IdKind;
import java.util.EnumMap;
import java.util.function.LongSupplier;

/**
 * Job, actor and worker ids, handed out from blocks reserved durably through {@link Effect.Write.Reserve}
 * effects that precede every effect using an id. A restarted meta continues above every reserved id.
 * SST ids are not the core's: compute nodes take them from the driver directly.
 *
 * <p>Thread-safety: confined to the core.
 */
final class IdRanges {
  private static final int BLOCK = 64;

  private final EnumMap<IdKind, long[]> ranges = new EnumMap<>(IdKind.class); // kind -> {next, limit}
  private final Effects out;

  IdRanges(Counters counters, Effects out) {
    this.out = out;
    for (IdKind k : new IdKind[] {IdKind.JOB, IdKind.ACTOR, IdKind.WORKER}) {
      long next = counters.next(k);
      ranges.put(k, new long[] {next, next});
    }
  }

  /** The next id of {@code kind}, reserving a block first when none is left. */
  long take(IdKind kind) {
    long[] r = ranges.get(kind);
    if (r[0] >= r[1]) {
      out.persist(new Effect.Write.Reserve(kind, r[1], BLOCK));
      r[1] += BLOCK;
    }
    return r[0]++;
  }

  /**
   * Ids for a tentative plan: drawn from the next free id on without reserving. {@link #commit} makes
   * the ones drawn taken; a plan that is not applied leaves the range as it was.
   */
  Tentative tentative(IdKind kind) {
    return new Tentative(kind, ranges.get(kind)[0]);
  }

  /** Takes every id a tentative supplier handed out (reserving as needed). */
  void commit(Tentative t) {
    long[] r = ranges.get(t.kind);
    while (r[0] < t.next) {
      take(t.kind);
    }
  }

  /** Ids drawn without reserving; see {@link #tentative}. */
  static final class Tentative implements LongSupplier {
    private final IdKind kind;
    private long next;

    private Tentative(IdKind kind, long first) {
      this.kind = kind;
      this.next = first;
    }

    @Override
    public long getAsLong() {
      return next++;
    }
  }
}

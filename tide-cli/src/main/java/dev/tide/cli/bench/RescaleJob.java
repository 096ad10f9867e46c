package dev.tide.cli.bench;

import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.SourceNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.Agg;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.source.NexmarkSourceOptions;
import java.util.Map;

/**
 * The job the rescale benchmark scales: two independent pipelines in one job, so one reschedule
 * moves both.
 *
 * <ul>
 *   <li><b>backfill</b>: a bounded, unthrottled bid source materialized as a view of every bid
 *       (keyed by {@code _row_id}): it writes the bulk of the state quickly, then goes idle.
 *   <li><b>live</b>: an unbounded bid source paced at the benchmark's rate, counted per auction
 *       (hash exchange, aggregation state read and written by every event) into a second view. Its
 *       committed split offsets are what the benchmark measures.
 * </ul>
 *
 * <p>Why two sources: a source's rate is fixed when the job is built, and a plan has no union, so
 * "load fast, then run at a fixed rate" needs a second source, and the bulk state sits in a view
 * the live stream does not read. The live stream therefore does not probe the bulk state after a
 * reschedule (no cold-cache reads of it); see the caveats printed by the command.
 */
public final class RescaleJob {
  public static final String NAME = "rescale_bench";
  public static final String BACKFILL_VIEW = "backfill_bids";
  public static final String LIVE_VIEW = "live_bids_per_auction";
  /** Seed of the backfill source; the live source keeps the default seed. */
  static final long BACKFILL_SEED = 7;
  /**
   * Committed SST bytes the backfill view takes per Nexmark event (bids are 46 of 50 events), as
   * measured on this format; used only to size the backfill, the benchmark prints the real size.
   */
  public static final double STATE_BYTES_PER_BACKFILL_EVENT = 120.0;

  private RescaleJob() {}

  /**
   * @param backfillEvents events of the backfill stream (all tables; only its bids are kept)
   * @param rate events per second of the live stream
   * @param splits splits of each source
   */
  public static Plan plan(long backfillEvents, long rate, int splits) {
    PlanBuilder b = new PlanBuilder(NAME);
    Map<String, String> backfill = Map.of(
        NexmarkSourceOptions.EVENTS.key(), String.valueOf(backfillEvents),
        NexmarkSourceOptions.SEED.key(), String.valueOf(BACKFILL_SEED),
        NexmarkSourceOptions.SPLITS.key(), String.valueOf(splits));
    b.source("nexmark", "bid", backfill).materialize(BACKFILL_VIEW);
    Map<String, String> live = Map.of(
        NexmarkSourceOptions.RATE.key(), String.valueOf(rate),
        NexmarkSourceOptions.SPLITS.key(), String.valueOf(splits));
    b.source("nexmark", "bid", live).groupBy("auction").agg(Agg.count("bids"), Agg.sum("price", "volume"))
        .materialize(LIVE_VIEW);
    return b.build();
  }

  /** Events to backfill so that the committed state reaches about {@code stateBytes}. */
  public static long backfillEventsFor(long stateBytes) {
    return Math.max(1, Math.round(stateBytes / STATE_BYTES_PER_BACKFILL_EVENT));
  }

  /** A compiled source of the job: its node and its state table (split, next ordinal). */
  public record CompiledSource(SourceNode node, TableCatalog stateTable) {
    public int splits() {
      return node.getSplitCount();
    }

    public long events() {
      return NexmarkSourceOptions.parse(node.getOptionsMap()).get(NexmarkSourceOptions.EVENTS);
    }
  }

  /** The live (rate-limited) source of a compiled job. */
  public static CompiledSource liveSource(JobDefinition job) {
    return source(job, true);
  }

  /** The backfill (bounded) source of a compiled job. */
  public static CompiledSource backfillSource(JobDefinition job) {
    return source(job, false);
  }

  private static CompiledSource source(JobDefinition job, boolean live) {
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        if (n.hasSource() && n.getSource().getOptionsMap().containsKey(NexmarkSourceOptions.RATE.key()) == live) {
          int tableId = n.getSource().getStateTableId();
          TableCatalog t = job.getTablesList().stream().filter(c -> c.getTableId() == tableId).findFirst()
              .orElseThrow(() -> new IllegalStateException("job '" + job.getName() + "' has no state table " + tableId
                  + " for its " + (live ? "live" : "backfill") + " source"));
          return new CompiledSource(n.getSource(), t);
        }
      }
    }
    throw new IllegalStateException("job '" + job.getName() + "' has no " + (live ? "live" : "backfill") + " source");
  }
}

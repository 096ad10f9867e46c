package dev.tide.cluster;

import dev.tide.common.hash.RowFingerprint;
import dev.tide.meta.Meta;
import dev.tide.proto.plan.Fragment;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.PlanNode;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.storage.StateStore;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.stream.nexmark.NexmarkGenerator;
import dev.tide.stream.nexmark.NexmarkTable;
import dev.tide.stream.source.NexmarkSourceOptions;
import dev.tide.stream.state.StateTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Reads of a cluster's committed state, from the object store at meta's committed version:
 * materialized views ({@code tide ctl scan}), digests and source progress. Runs wherever meta runs.
 */
public final class CommittedViews {
  private final Supplier<Meta> meta;
  private final StateStore reader;

  /** Views over {@code objects} at the committed version of the current meta (it may be restarted). */
  public CommittedViews(Supplier<Meta> meta, ObjectStore objects) {
    this.meta = meta;
    this.reader = new StateStore(objects, new BlockCache(64L << 20), "state", () -> {
      throw new IllegalStateException("a reader never writes");
    });
  }

  /**
   * The oldest state-store version an open scan of these views still reads, or {@code Long.MAX_VALUE}
   * when none is open (the reader installs the newest version before each read). Obsolete SSTs of
   * later versions must not be deleted before such scans end.
   */
  public long oldestPinnedVersion() {
    java.util.Map<Long, Integer> pinned = reader.pinnedVersions();
    return pinned.isEmpty() ? Long.MAX_VALUE : pinned.keySet().iterator().next();
  }

  /** The reader at meta's committed version, kept across calls so open SST readers are reused. */
  private synchronized StateStore reader() {
    reader.commit(meta.get().committedVersion());
    return reader;
  }

  /** The committed rows of a materialized view (visible columns), in key order. */
  public List<Object[]> scan(String view) {
    TableCatalog t = meta.get().view(view).orElseThrow(() -> new IllegalArgumentException("unknown materialized view '" + view + "'"));
    List<Object[]> out = new ArrayList<>();
    for (Object[] row : StateTable.scanAll(reader(), t)) {
      out.add(Arrays.copyOf(row, t.getVisibleColumns()));
    }
    return out;
  }

  /**
   * The committed digest of a digest sink: the fingerprint of the rows its input left behind up to
   * the committed epoch, the sum of its actors' rows.
   */
  public RowFingerprint digest(String name) {
    TableCatalog t = meta.get().digest(name).orElseThrow(() -> new IllegalArgumentException("unknown digest '" + name + "'"));
    RowFingerprint.Builder total = new RowFingerprint.Builder();
    for (Object[] row : StateTable.scanAll(reader(), t)) {
      total.add(new RowFingerprint((Long) row[1], (Long) row[2], (Long) row[3]));
    }
    return total.build();
  }

  /** Committed progress of one source of a job. */
  public record SourceProgress(String table, long emitted, long total) {
    public boolean done() {
      return total >= 0 && emitted >= total;
    }
  }

  /**
   * Committed progress of every source of the job, from the split offsets in the committed state:
   * a split's offset is its next ordinal, so it has emitted {@code ceil((offset - split) / splits)} rows.
   */
  public List<SourceProgress> sourceProgress(JobDefinition job) {
    StateStore reader = reader();
    List<SourceProgress> out = new ArrayList<>();
    for (Fragment f : job.getFragmentsList()) {
      for (PlanNode n : f.getNodesList()) {
        if (!n.hasSource() || !(n.getSource().getConnector().isEmpty() || n.getSource().getConnector().equals("nexmark"))) {
          continue; // the offsets of a connector's source are its own (Kafka: per partition), not Nexmark ordinals
        }
        long events = NexmarkSourceOptions.parse(n.getSource().getOptionsMap()).get(NexmarkSourceOptions.EVENTS);
        NexmarkTable table = NexmarkTable.valueOf(n.getSource().getTable().toUpperCase(Locale.ROOT));
        long total = events < 0 ? -1 : NexmarkGenerator.ordinalsBelow(table, events);
        int splits = n.getSource().getSplitCount();
        TableCatalog t = job.getTablesList().stream().filter(c -> c.getTableId() == n.getSource().getStateTableId()).findFirst().orElseThrow();
        long emitted = 0;
        for (Object[] row : StateTable.scanAll(reader, t)) {
          long split = (Integer) row[0];
          long offset = total < 0 ? (Long) row[1] : Math.min((Long) row[1], roundUp(total, split, splits));
          emitted += (offset - split + splits - 1) / splits;
        }
        out.add(new SourceProgress(n.getSource().getTable(), emitted, total));
      }
    }
    return out;
  }

  /** The first ordinal of the split at or past {@code total}: where a finished split's offset stops. */
  private static long roundUp(long total, long split, int splits) {
    long k = Math.max(0, (total - split + splits - 1) / splits);
    return split + k * splits;
  }

  /** True once every bounded source of the job has committed offsets past its last event. */
  public boolean sourcesDone(JobDefinition job) {
    List<SourceProgress> p = sourceProgress(job);
    return !p.isEmpty() && p.stream().allMatch(SourceProgress::done);
  }

}

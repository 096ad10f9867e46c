package dev.tide.storage;

import dev.tide.common.store.VersionDeltas;
import dev.tide.proto.store.Level;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import dev.tide.storage.merge.EntryCursor;
import dev.tide.storage.merge.Lookup;
import dev.tide.storage.merge.MergingCursor;
import dev.tide.storage.object.ObjectStore;
import dev.tide.storage.sst.BlockCache;
import dev.tide.storage.sst.SstReaders;
import dev.tide.storage.sst.SstUploader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The state store of one compute node: the uncommitted write batches this node's actors handed
 * over, on top of the committed version (owned by meta) whose SSTs live in the object store.
 *
 * <h2>Life of a write</h2>
 *
 * <ol>
 *   <li>{@link #ingest}: an actor hands over a table's {@link SortedWriteBatch} of an epoch at the
 *       barrier. It is readable at once.
 *   <li>{@link #sync}: at a checkpoint, the node merges every batch up to the epoch into SSTs,
 *       uploads them and reports their infos to meta. Reads then go to those SSTs (a sorted run
 *       above the committed version) instead of the batches, which are dropped in the same atomic
 *       swap of the read view: a node does not hold an epoch's writes on the heap while meta
 *       commits it (for a saturated job, hundreds of megabytes the collector must keep).
 *   <li>{@link #commit}: meta's new version includes those SSTs; the store swaps its read view to
 *       the new version without the batches and synced runs it now covers, in one atomic step, so a
 *       reader sees the data in memory, in a synced run or in the version, never in none.
 * </ol>
 *
 * <h2>Reads</h2>
 *
 * Newest source first: batches by (epoch, ingest order) descending, then the synced runs not yet
 * committed (newest first; each one sync's SSTs, disjoint in key range), then L0 newest first, then
 * L1, L2, ... A tombstone hides older values. Each read works on one immutable view taken at its
 * start. Scans pin the view's version until closed or exhausted ({@link #minPinnedVersionId()});
 * point reads are short and do not pin, so a garbage collector must give readers a grace period.
 *
 * <h2>Epoch rules</h2>
 *
 * Epochs are positive. {@link #ingest} refuses an epoch at or below the committed epoch or an
 * epoch already taken by a {@link #sync}: such data would never be synced. {@link #reset}
 * (recovery) lowers that bar to the given committed epoch.
 *
 * <p>The store never deletes objects: unreferenced SSTs are left to meta's garbage collection.
 *
 * <p>Thread-safety: safe for concurrent use. Many actor threads read and ingest concurrently (on
 * disjoint key ranges); {@link #sync} calls are serialized; commit and reset come from the node's
 * control thread.
 */
public final class StateStore {
  /** A batch with its epoch and ingest order. */
  private static final class Batch {
    final long epoch;
    final long seq;
    final SortedWriteBatch data;

    Batch(long epoch, long seq, SortedWriteBatch data) {
      this.epoch = epoch;
      this.seq = seq;
      this.data = data;
    }

    /** Newer batches first: higher epoch, then later ingest. */
    boolean newerThan(Batch o) {
      return epoch != o.epoch ? epoch > o.epoch : seq > o.seq;
    }
  }

  /** The SSTs one {@link #sync} uploaded, not yet in a committed version: a sorted run of disjoint key ranges. */
  private record SyncedRun(long epoch, SstRef[] ssts) {}

  private static final SyncedRun[] NO_RUNS = new SyncedRun[0];

  /** What a read sees: immutable, swapped atomically. */
  private static final class View {
    final StoreVersion version;
    final Batch[] batches; // newest first
    final SyncedRun[] synced; // newest first
    final SstRef[] l0; // newest first
    final SstRef[][] levels; // L1, L2, ...; each sorted by key
    final long uncommittedBytes;
    final int sstCount;

    View(StoreVersion version, Batch[] batches, SyncedRun[] synced, SstRef[] l0, SstRef[][] levels) {
      this.version = version;
      this.batches = batches;
      this.synced = synced;
      this.l0 = l0;
      this.levels = levels;
      long bytes = 0;
      for (Batch b : batches) {
        bytes += b.data.sizeBytes();
      }
      this.uncommittedBytes = bytes;
      int n = l0.length;
      for (SstRef[] level : levels) {
        n += level.length;
      }
      this.sstCount = n;
    }

    static View of(StoreVersion version, Batch[] batches, SyncedRun[] synced) {
      SstRef[] l0 = refs(version.getL0().getSstsList());
      SstRef[][] levels = new SstRef[version.getLevelsCount()][];
      for (int i = 0; i < levels.length; i++) {
        Level level = version.getLevels(i);
        levels[i] = refs(level.getSstsList());
      }
      return new View(version, batches, synced, l0, levels);
    }

    View withBatches(Batch[] newBatches) {
      return new View(version, newBatches, synced, l0, levels);
    }

    /** The committed version alone. */
    View committedOnly() {
      return new View(version, NO_BATCHES, NO_RUNS, l0, levels);
    }

    private static SstRef[] refs(List<SstInfo> ssts) {
      SstRef[] out = new SstRef[ssts.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = new SstRef(ssts.get(i));
      }
      return out;
    }
  }

  private static final Batch[] NO_BATCHES = new Batch[0];

  private final ObjectStore objects;
  private final SstReaders readers;
  private final String objectPrefix;
  private final LongSupplier sstIds;
  private final StoreOptions options;

  private final Object lock = new Object(); // guards view writes, sealedEpoch, nextSeq
  private final Object syncLock = new Object(); // serializes syncs
  private final TreeMap<Long, Integer> pins = new TreeMap<>(); // guarded by itself
  private volatile View view;
  private long sealedEpoch;
  private long nextSeq;

  /** A store with {@link StoreOptions#defaults()}, starting from the empty version. */
  public StateStore(ObjectStore objects, BlockCache cache, String objectPrefix,
      LongSupplier sstIdSource) {
    this(objects, cache, objectPrefix, sstIdSource, StoreOptions.defaults());
  }

  /**
   * A store starting from the empty version; install the committed version with {@link #commit}.
   *
   * @param objects where SSTs are read and written
   * @param cache the node's block cache
   * @param objectPrefix SSTs are written at {@code objectPrefix + "/" + id + ".sst"}
   * @param sstIdSource cluster-unique SST ids
   */
  public StateStore(ObjectStore objects, BlockCache cache, String objectPrefix,
      LongSupplier sstIdSource, StoreOptions options) {
    if (objectPrefix == null || objectPrefix.isEmpty() || objectPrefix.endsWith("/")) {
      throw new IllegalArgumentException("state store object prefix '" + objectPrefix
          + "' must be a non-empty path without a trailing '/', like 'state'");
    }
    this.objects = objects;
    this.readers = new SstReaders(objects, cache, options.maxOpenSstReaders());
    this.objectPrefix = objectPrefix;
    this.sstIds = sstIdSource;
    this.options = options;
    this.view = View.of(VersionDeltas.empty(), NO_BATCHES, NO_RUNS);
  }

  // ---------------------------------------------------------------- writes

  /**
   * Adds a table's batch of writes of {@code epoch}; readable immediately. Empty batches are
   * ignored.
   *
   * @throws IllegalArgumentException if {@code epoch} is not positive, is committed already, or
   *     was already taken by a sync
   */
  public void ingest(long epoch, SortedWriteBatch batch) {
    synchronized (lock) {
      long committed = view.version.getMaxCommittedEpoch();
      if (epoch <= 0) {
        throw new IllegalArgumentException(
            "ingest refused: epoch " + epoch + " is not positive; epochs start at 1");
      }
      if (epoch <= committed) {
        throw new IllegalArgumentException("ingest of epoch " + epoch + " refused: epoch "
            + committed + " is committed already; ingest only epochs after the committed one");
      }
      if (epoch <= sealedEpoch) {
        throw new IllegalArgumentException("ingest of epoch " + epoch + " refused: sync("
            + sealedEpoch + ") has already taken the epochs up to " + sealedEpoch
            + "; hand batches over before syncing their epoch");
      }
      if (batch.isEmpty()) {
        return;
      }
      Batch b = new Batch(epoch, nextSeq++, batch);
      Batch[] old = view.batches;
      Batch[] next = new Batch[old.length + 1];
      int i = 0;
      while (i < old.length && old[i].newerThan(b)) {
        next[i] = old[i];
        i++;
      }
      next[i] = b;
      System.arraycopy(old, i, next, i + 1, old.length - i);
      view = view.withBatches(next);
    }
  }

  /**
   * Writes every batch with epoch {@code <= epoch} not synced before into new SSTs (newest write
   * of a key wins; tombstones kept; files cut at the target size) and uploads them; reads of those
   * batches then go to the uploaded SSTs until a commit covers them, and the batches are dropped.
   * Later ingests of epochs {@code <= epoch} are refused.
   *
   * <p>If an upload fails the batches stay unsynced and a later sync retries them.
   *
   * @return the uploaded SSTs in key order; empty if there was nothing to sync
   */
  public List<SstInfo> sync(long epoch) {
    synchronized (syncLock) {
      List<Batch> taken = new ArrayList<>();
      synchronized (lock) {
        sealedEpoch = Math.max(sealedEpoch, epoch);
        for (Batch b : view.batches) { // newest first; a synced batch has left the view
          if (b.epoch <= epoch) {
            taken.add(b);
          }
        }
      }
      if (taken.isEmpty()) {
        return List.of();
      }
      List<EntryCursor> sources = new ArrayList<>(taken.size());
      byte[] all = new byte[0];
      for (Batch b : taken) {
        sources.add(new BatchCursor(b.data, b.epoch, all, null, false));
      }
      MergingCursor merged = new MergingCursor(sources, false);
      SstUploader uploader = new SstUploader(objects, objectPrefix, sstIds,
          options.targetSstBytes(), options.blockTargetBytes(), options.bloomBitsPerKey());
      for (; merged.valid(); merged.next()) {
        uploader.add(merged);
      }
      List<SstInfo> infos = uploader.finish();
      swapToSynced(epoch, taken, infos);
      return infos;
    }
  }

  /**
   * Reads of the batches a sync took go to its SSTs from now on: the batches leave the view and the
   * run joins it (unless a commit covered them meanwhile), in one swap.
   */
  private void swapToSynced(long epoch, List<Batch> taken, List<SstInfo> infos) {
    Set<Batch> gone = Collections.newSetFromMap(new IdentityHashMap<>());
    gone.addAll(taken);
    synchronized (lock) {
      View v = view;
      List<Batch> kept = new ArrayList<>(v.batches.length);
      for (Batch b : v.batches) {
        if (!gone.contains(b)) {
          kept.add(b);
        }
      }
      SyncedRun[] runs = v.synced;
      if (epoch > v.version.getMaxCommittedEpoch() && !infos.isEmpty()) {
        SstRef[] ssts = new SstRef[infos.size()];
        for (int i = 0; i < ssts.length; i++) {
          ssts[i] = new SstRef(infos.get(i));
        }
        runs = new SyncedRun[v.synced.length + 1];
        runs[0] = new SyncedRun(epoch, ssts); // newer than every earlier run: syncs are serialized, epochs rise
        System.arraycopy(v.synced, 0, runs, 1, v.synced.length);
      }
      view = new View(v.version, kept.toArray(NO_BATCHES), runs, v.l0, v.levels);
    }
  }

  /**
   * Installs a committed version newer than the current one (older or equal ids are ignored) and
   * drops the batches it covers (epoch {@code <= version.max_committed_epoch}), in one atomic
   * swap of the read view. Wakes {@link #waitCommitted} callers.
   *
   * @throws IllegalArgumentException if the newer version has a lower committed epoch
   */
  public void commit(StoreVersion version) {
    View old;
    synchronized (lock) {
      old = view;
      StoreVersion cur = old.version;
      if (version.getId() <= cur.getId()) {
        return;
      }
      if (version.getMaxCommittedEpoch() < cur.getMaxCommittedEpoch()) {
        throw new IllegalArgumentException("commit of version " + version.getId()
            + " refused: its committed epoch " + version.getMaxCommittedEpoch()
            + " is below the committed epoch " + cur.getMaxCommittedEpoch() + " of version "
            + cur.getId() + "; committed epochs never decrease");
      }
      long committed = version.getMaxCommittedEpoch();
      int keep = 0;
      for (Batch b : old.batches) {
        if (b.epoch > committed) {
          keep++;
        }
      }
      Batch[] kept = new Batch[keep];
      int i = 0;
      for (Batch b : old.batches) {
        if (b.epoch > committed) {
          kept[i++] = b;
        }
      }
      List<SyncedRun> runs = new ArrayList<>();
      for (SyncedRun r : old.synced) {
        if (r.epoch() > committed) {
          runs.add(r);
        }
      }
      view = View.of(version, kept, runs.toArray(NO_RUNS));
      sealedEpoch = Math.max(sealedEpoch, committed);
      lock.notifyAll();
    }
    forgetRemovedReaders(old.version, version);
  }

  /**
   * Recovery: drops every uncommitted batch and installs {@code committed} (whatever its id), so
   * epochs after its committed epoch can be ingested again. Wakes {@link #waitCommitted} callers.
   */
  public void reset(StoreVersion committed) {
    View old;
    synchronized (lock) {
      old = view;
      view = View.of(committed, NO_BATCHES, NO_RUNS);
      sealedEpoch = committed.getMaxCommittedEpoch();
      lock.notifyAll();
    }
    forgetRemovedReaders(old.version, committed);
    Set<Long> live = new HashSet<>();
    VersionDeltas.allSsts(committed).forEach(sst -> live.add(sst.getId()));
    for (SyncedRun r : old.synced) { // uploaded, never committed: their readers go
      for (SstRef sst : r.ssts()) {
        if (!live.contains(sst.info.getId())) {
          readers.invalidate(sst.info.getId());
        }
      }
    }
  }

  private void forgetRemovedReaders(StoreVersion oldVersion, StoreVersion newVersion) {
    Set<Long> live = new HashSet<>();
    for (SstInfo sst : VersionDeltas.allSsts(newVersion)) {
      live.add(sst.getId());
    }
    for (SstInfo sst : VersionDeltas.allSsts(oldVersion)) {
      if (!live.contains(sst.getId())) {
        readers.invalidate(sst.getId());
      }
    }
  }

  // ---------------------------------------------------------------- reads

  /** The value of {@code key}, or empty if it was never written or was deleted. */
  public Optional<byte[]> get(byte[] key) {
    View v = view;
    for (Batch b : v.batches) {
      int i = b.data.indexOf(key);
      if (i >= 0) {
        byte[] value = b.data.value(i); // a copy
        return Optional.ofNullable(value);
      }
    }
    for (SyncedRun r : v.synced) {
      SstRef sst = SstRef.find(r.ssts(), key);
      if (sst != null) {
        Lookup found = readers.reader(sst.info).get(key);
        if (found != null) {
          return found.tombstone() ? Optional.empty() : Optional.of(found.value());
        }
      }
    }
    for (SstRef sst : v.l0) {
      if (sst.contains(key)) {
        Lookup found = readers.reader(sst.info).get(key);
        if (found != null) {
          return found.tombstone() ? Optional.empty() : Optional.of(found.value());
        }
      }
    }
    for (SstRef[] level : v.levels) {
      SstRef sst = SstRef.find(level, key);
      if (sst != null) {
        Lookup found = readers.reader(sst.info).get(key);
        if (found != null) {
          return found.tombstone() ? Optional.empty() : Optional.of(found.value());
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Live entries with keys in {@code [fromInclusive, toExclusive)} in ascending key order. The
   * iterator pins the current version until closed or exhausted; close it.
   *
   * @param fromInclusive lower bound (an empty array for the start of the key space)
   * @param toExclusive upper bound, or null for the end of the key space
   */
  public CloseableIterator<KeyValue> scan(byte[] fromInclusive, byte[] toExclusive) {
    return open(fromInclusive, toExclusive, false);
  }

  /** Like {@link #scan} in descending key order. */
  public CloseableIterator<KeyValue> scanReverse(byte[] fromInclusive, byte[] toExclusive) {
    return open(fromInclusive, toExclusive, true);
  }

  /** The live entry with the greatest key in {@code [fromInclusive, toExclusive)}, if any. */
  public Optional<KeyValue> last(byte[] fromInclusive, byte[] toExclusive) {
    try (CloseableIterator<KeyValue> it = scanReverse(fromInclusive, toExclusive)) {
      return it.hasNext() ? Optional.of(it.next()) : Optional.empty();
    }
  }

  /**
   * A read of the installed committed version alone, without this node's uncommitted batches: what
   * every node reads at {@link CommittedRead#epoch()}. Each scan of it pins the version until closed
   * or exhausted, like {@link #scan}.
   */
  public CommittedRead committedRead() {
    return new CommittedRead(view.committedOnly());
  }

  /** Reads of one committed version (see {@link #committedRead()}). Thread-safety: safe for concurrent use. */
  public final class CommittedRead {
    private final View v;

    private CommittedRead(View v) {
      this.v = v;
    }

    /** The committed epoch of the version read: it holds every write of epochs up to it, none after. */
    public long epoch() {
      return v.version.getMaxCommittedEpoch();
    }

    /** Live entries with keys in {@code [fromInclusive, toExclusive)}, ascending; close the iterator. */
    public CloseableIterator<KeyValue> scan(byte[] fromInclusive, byte[] toExclusive) {
      return open(v, fromInclusive, toExclusive, false);
    }

    /** The live entry with the greatest key in {@code [fromInclusive, toExclusive)}, if any. */
    public Optional<KeyValue> last(byte[] fromInclusive, byte[] toExclusive) {
      try (CloseableIterator<KeyValue> it = open(v, fromInclusive, toExclusive, true)) {
        return it.hasNext() ? Optional.of(it.next()) : Optional.empty();
      }
    }
  }

  private CloseableIterator<KeyValue> open(byte[] from, byte[] to, boolean reverse) {
    return open(view, from, to, reverse);
  }

  private CloseableIterator<KeyValue> open(View v, byte[] from, byte[] to, boolean reverse) {
    if (from == null) {
      throw new IllegalArgumentException(
          "scan lower bound is null; pass an empty array to scan from the first key");
    }
    long versionId = v.version.getId();
    pin(versionId);
    try {
      List<EntryCursor> sources = new ArrayList<>(v.batches.length + v.synced.length + v.l0.length + v.levels.length);
      for (Batch b : v.batches) {
        BatchCursor c = new BatchCursor(b.data, b.epoch, from, to, reverse);
        if (c.valid()) {
          sources.add(c);
        }
      }
      for (SyncedRun r : v.synced) {
        LevelCursor c = new LevelCursor(r.ssts(), readers, from, to, reverse);
        if (c.valid()) {
          sources.add(c);
        }
      }
      for (SstRef sst : v.l0) {
        if (sst.overlaps(from, to)) {
          EntryCursor c = readers.reader(sst.info).cursor(from, to, reverse, true);
          if (c.valid()) {
            sources.add(c);
          }
        }
      }
      for (SstRef[] level : v.levels) {
        LevelCursor c = new LevelCursor(level, readers, from, to, reverse);
        if (c.valid()) {
          sources.add(c);
        }
      }
      return new StoreIterator(new MergingCursor(sources, reverse), () -> unpin(versionId));
    } catch (RuntimeException e) {
      unpin(versionId);
      throw e;
    }
  }

  // ---------------------------------------------------------------- commit state

  /**
   * Blocks until a version with committed epoch {@code >= epoch} is installed (returns at once if
   * it is already).
   */
  public void waitCommitted(long epoch) throws InterruptedException {
    synchronized (lock) {
      while (view.version.getMaxCommittedEpoch() < epoch) {
        lock.wait();
      }
    }
  }

  /** The committed epoch of the installed version. */
  public long committedEpoch() {
    return view.version.getMaxCommittedEpoch();
  }

  /** The installed committed version. */
  public StoreVersion committedVersion() {
    return view.version;
  }

  /** Estimated heap bytes of the batches held: not yet synced (a sync hands their reads to its SSTs). */
  public long uncommittedBytes() {
    return view.uncommittedBytes;
  }

  /** Number of batches held: not yet synced. */
  public int uncommittedBatchCount() {
    return view.batches.length;
  }

  /** Number of SSTs in the installed committed version. */
  public int committedSstCount() {
    return view.sstCount;
  }

  // ---------------------------------------------------------------- pins

  private void pin(long versionId) {
    synchronized (pins) {
      pins.merge(versionId, 1, Integer::sum);
    }
  }

  private void unpin(long versionId) {
    synchronized (pins) {
      pins.computeIfPresent(versionId, (k, n) -> n == 1 ? null : n - 1);
    }
  }

  /**
   * The lowest version id a reader may still use: the lower of the installed version and the
   * oldest version pinned by an open scan. Objects referenced only by versions below it may be
   * deleted (after a grace period, as point reads do not pin).
   */
  public long minPinnedVersionId() {
    long installed = view.version.getId();
    synchronized (pins) {
      Map.Entry<Long, Integer> first = pins.firstEntry();
      return first == null ? installed : Math.min(first.getKey(), installed);
    }
  }

  /** Versions pinned by open scans and their scan counts, ascending by id. */
  public Map<Long, Integer> pinnedVersions() {
    synchronized (pins) {
      return new TreeMap<>(pins);
    }
  }

  @Override
  public String toString() {
    View v = view;
    return "StateStore(" + objectPrefix + ", version " + v.version.getId() + ", committed epoch "
        + v.version.getMaxCommittedEpoch() + ", " + v.sstCount + " SSTs, " + v.batches.length
        + " uncommitted batches)";
  }
}

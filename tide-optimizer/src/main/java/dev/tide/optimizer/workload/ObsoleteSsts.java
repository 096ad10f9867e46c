package dev.tide.optimizer.workload;

import dev.tide.proto.store.SstInfo;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * SSTs dropped from the state-store version, waiting until no reader can still use them.
 *
 * <p>Rule: an SST dropped by version {@code V} (present in {@code V − 1}, absent from {@code V}) may
 * be deleted once every reader has moved to {@code V} or later — the lowest version any reader still
 * uses (its installed version or one an open scan pins) is at least {@code V} — and {@code grace} has
 * passed since that was first seen, because point reads run on a version without pinning it.
 *
 * <p>Thread-safety: synchronized.
 */
public final class ObsoleteSsts {
  private static final class Entry {
    final SstInfo sst;
    final long droppedByVersion;
    /** When every reader was first seen past the dropping version; -1 until then. */
    long releasedAtMs = -1;

    Entry(SstInfo sst, long droppedByVersion) {
      this.sst = sst;
      this.droppedByVersion = droppedByVersion;
    }
  }

  private final long graceMs;
  private final List<Entry> waiting = new ArrayList<>();

  public ObsoleteSsts(long graceMs) {
    this.graceMs = graceMs;
  }

  /** {@code ssts} were dropped by version {@code versionId}. */
  public synchronized void dropped(List<SstInfo> ssts, long versionId) {
    for (SstInfo sst : ssts) {
      waiting.add(new Entry(sst, versionId));
    }
  }

  /**
   * Takes the SSTs that may be deleted now.
   *
   * @param minReaderVersion the lowest version id any reader still installed or pins
   */
  public synchronized List<SstInfo> takeDeletable(long minReaderVersion, long now) {
    List<SstInfo> out = new ArrayList<>();
    for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.releasedAtMs < 0 && minReaderVersion >= e.droppedByVersion) {
        e.releasedAtMs = now;
      }
      if (e.releasedAtMs >= 0 && now - e.releasedAtMs >= graceMs) {
        out.add(e.sst);
        it.remove();
      }
    }
    return out;
  }

  /** SSTs still waiting. */
  public synchronized int size() {
    return waiting.size();
  }
}

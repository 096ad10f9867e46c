package dev.tide.meta.store;

import dev.tide.proto.store.SstInfo;
import java.util.Objects;

/**
 * An SST a committed version dropped (a compaction input) and whose object is not yet deleted. Kept
 * durably with the version that dropped it, so that a meta restart still deletes it once no reader
 * can use it.
 *
 * @param sst the dropped SST
 * @param droppedByVersion the id of the version that no longer holds it
 */
public record ObsoleteSstRecord(SstInfo sst, long droppedByVersion) {
  public ObsoleteSstRecord {
    Objects.requireNonNull(sst, "sst");
  }
}

package dev.tide.meta.store;

import dev.tide.proto.store.StoreVersion;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything the meta store holds, read in one transaction: what meta rebuilds its state from at start.
 *
 * @param jobs jobs by id
 * @param workers registered workers by id
 * @param version the committed state-store version ({@code VersionDeltas.empty()} in a new store)
 * @param counters the next id of each kind
 * @param optimizerGroups optimizer-group properties text by group name
 * @param catalog the SQL catalog's objects by name
 */
public record MetaSnapshot(SortedMap<Integer, JobRecord> jobs, SortedMap<Integer, WorkerRecord> workers, StoreVersion version,
    Counters counters, SortedMap<String, String> optimizerGroups, SortedMap<String, CatalogRecord> catalog) {
  public MetaSnapshot {
    jobs = Collections.unmodifiableSortedMap(new TreeMap<>(jobs));
    workers = Collections.unmodifiableSortedMap(new TreeMap<>(workers));
    optimizerGroups = Collections.unmodifiableSortedMap(new TreeMap<>(optimizerGroups));
    catalog = Collections.unmodifiableSortedMap(new TreeMap<>(catalog));
  }

  /** A snapshot without SQL catalog objects. */
  public MetaSnapshot(SortedMap<Integer, JobRecord> jobs, SortedMap<Integer, WorkerRecord> workers, StoreVersion version,
      Counters counters, SortedMap<String, String> optimizerGroups) {
    this(jobs, workers, version, counters, optimizerGroups, new TreeMap<>());
  }
}

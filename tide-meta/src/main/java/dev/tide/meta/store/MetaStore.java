package dev.tide.meta.store;

import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.List;
import java.util.SortedMap;

/**
 * Meta's durable state: jobs (definition, intent, layout, pause flag), registered workers, the
 * committed state-store version with the obsolete SSTs awaiting deletion, id counters, optimizer
 * groups and the tables' optimizing properties.
 *
 * <p>Every method is one transaction: it either takes effect entirely or not at all. Failures of the
 * store itself are {@link MetaStoreException}s; refusals of a request that does not fit the stored
 * state are {@link IllegalArgumentException} or {@link IllegalStateException}. After an exception
 * nothing has changed, except when the connection was lost while committing: then the outcome is
 * unknown and the caller should {@link #load()} again (or recover) before going on.
 *
 * <p>Thread-safety: methods may be called from any thread; they are serialized. Meta calls them from
 * its driver thread, except id allocation, obsolete-SST bookkeeping and table properties (called by
 * the optimizing service).
 */
public interface MetaStore extends AutoCloseable {

  /** Everything stored, as of one consistent point. */
  MetaSnapshot load();

  /**
   * Inserts a job, or replaces the definition, intent, layout and pause flag of the job with the
   * same id. Refused (nothing changed) when another job has the same name.
   */
  void putJob(JobRecord job);

  /** Removes a job; returns whether it was stored. */
  boolean deleteJob(int jobId);

  /** Sets a job's pause flag. Refused when the job is not stored. */
  void setPaused(int jobId, boolean paused);

  /**
   * Commits a state-store version together with the layouts of rescheduled jobs, and raises the
   * counters to {@code counterFloors}, all in one transaction. A reschedule's new layout is thereby
   * durable exactly when the epoch of the barrier that carried it is. Refused (nothing changed) when
   * the store already holds a newer version (a larger id or committed epoch) or when an update
   * names a job that is not stored.
   */
  void commitVersion(StoreVersion version, List<LayoutUpdate> layouts, Counters counterFloors);

  /** {@link #commitVersion(StoreVersion, List, Counters)} without layout changes. */
  default void commitVersion(StoreVersion version, Counters counterFloors) {
    commitVersion(version, List.of(), counterFloors);
  }

  /**
   * Commits a compaction's version like {@link #commitVersion(StoreVersion, Counters)} and, in the
   * same transaction, records the SSTs it dropped as obsolete (dropped by {@code version}), so that
   * their deletion survives a meta restart.
   */
  void commitCompaction(StoreVersion version, List<SstInfo> dropped, Counters counterFloors);

  /** The obsolete SSTs not yet {@linkplain #forgetObsoleteSsts forgotten}, sorted by SST id. */
  List<ObsoleteSstRecord> obsoleteSsts();

  /** Forgets obsolete SSTs whose objects are deleted; ids not recorded are ignored. */
  void forgetObsoleteSsts(List<Long> sstIds);

  /**
   * Durably reserves {@code count} (≥ 1) consecutive ids of {@code kind} and returns the first. Ids
   * reserved but never used are skipped, never handed out again.
   */
  long allocate(IdKind kind, int count);

  /** Registers a worker, or replaces the stored worker with the same id. */
  void putWorker(WorkerRecord worker);

  /** Deregisters a worker; returns whether it was stored. */
  boolean deleteWorker(int workerId);

  /** Stores an optimizer group's properties text under its name, replacing earlier properties. */
  void putOptimizerGroup(String name, String properties);

  /**
   * Stores an optimizer group (name, resource provider, properties text), replacing the one with the same
   * name.
   */
  void putOptimizerGroup(OptimizerGroupRecord group);

  /** Every optimizer group with its provider, sorted by name. */
  List<OptimizerGroupRecord> optimizerGroups();

  /** Removes an optimizer group and its resource records; returns whether it was stored. */
  boolean deleteOptimizerGroup(String name);

  /**
   * Stores a resource the scale keeper requested, replacing the record with the same id. Refused
   * (nothing changed) when its group is not stored.
   */
  void putOptimizerResource(OptimizerResourceRecord resource);

  /** Every resource record, sorted by resource id. */
  List<OptimizerResourceRecord> optimizerResources();

  /** Removes a resource record; returns whether it was stored. */
  boolean deleteOptimizerResource(String resourceId);

  /** Stores a compute-pool resource the keeper requested, replacing the record with the same id. */
  void putPoolResource(PoolResourceRecord resource);

  /** Every compute-pool resource record, sorted by resource id. */
  List<PoolResourceRecord> poolResources();

  /** Removes a compute-pool resource record; returns whether it was stored. */
  boolean deletePoolResource(String resourceId);

  /**
   * Appends a decision to {@code scope} and keeps only the scope's latest {@code keep}, in one
   * transaction; returns the stored record.
   */
  DecisionRecord appendDecision(String scope, long atMs, String decision, int keep);

  /** The decisions kept for {@code scope}, oldest first. */
  List<DecisionRecord> decisions(String scope);

  /** Stores a table's optimizing properties text, replacing earlier ones; empty text removes the row. */
  void putTableProperties(long tableId, String properties);

  /** The optimizing properties text of every configured table, by table id. */
  SortedMap<Long, String> tableProperties();

  /** Where the store is, for messages and logs (a file path or a JDBC URL without its parameters). */
  String describe();

  /** Releases the connection; further calls fail. Idempotent. */
  @Override
  void close();
}

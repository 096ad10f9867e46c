package dev.tide.meta.core;

import dev.tide.common.store.VersionDeltas;
import dev.tide.meta.store.Counters;
import dev.tide.meta.store.IdKind;
import dev.tide.meta.store.JobRecord;
import dev.tide.meta.store.LayoutUpdate;
import dev.tide.meta.store.MetaSnapshot;
import dev.tide.meta.store.MetaStore;
import dev.tide.meta.store.MetaStoreException;
import dev.tide.meta.store.ObsoleteSstRecord;
import dev.tide.meta.store.OptimizerGroupRecord;
import dev.tide.meta.store.OptimizerResourceRecord;
import dev.tide.meta.store.WorkerRecord;
import dev.tide.proto.store.SstInfo;
import dev.tide.proto.store.StoreVersion;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A meta store in memory with the transactional behaviour of the JDBC store for what the core
 * writes (jobs, workers, versions with layouts, id reservations), and a switch that makes the next
 * write fail before it applies. Optimizer groups and table properties are plain maps.
 */
final class SimMetaStore implements MetaStore {
  private final TreeMap<Integer, JobRecord> jobs = new TreeMap<>();
  private final TreeMap<Integer, WorkerRecord> workers = new TreeMap<>();
  private final EnumMap<IdKind, Long> counters = new EnumMap<>(IdKind.class);
  private StoreVersion version = VersionDeltas.empty();
  private boolean failNext;
  long writes;

  SimMetaStore() {
    for (IdKind k : IdKind.values()) {
      counters.put(k, 1L);
    }
  }

  /** The next write throws a {@link MetaStoreException} and changes nothing. */
  void failNextWrite() {
    failNext = true;
  }

  private void write() {
    writes++;
    if (failNext) {
      failNext = false;
      throw new MetaStoreException("simulated store failure", null);
    }
  }

  JobRecord job(int id) {
    return jobs.get(id);
  }

  StoreVersion version() {
    return version;
  }

  @Override
  public MetaSnapshot load() {
    return new MetaSnapshot(jobs, workers, version, new Counters(counters.get(IdKind.JOB), counters.get(IdKind.ACTOR),
        counters.get(IdKind.WORKER), counters.get(IdKind.SST)), new TreeMap<>());
  }

  @Override
  public void putJob(JobRecord job) {
    write();
    for (JobRecord j : jobs.values()) {
      if (j.jobId() != job.jobId() && j.name().equals(job.name())) {
        throw new IllegalArgumentException("a job named '" + job.name() + "' is stored already");
      }
    }
    jobs.put(job.jobId(), job);
  }

  @Override
  public boolean deleteJob(int jobId) {
    write();
    return jobs.remove(jobId) != null;
  }

  @Override
  public void setPaused(int jobId, boolean paused) {
    write();
    JobRecord j = jobs.get(jobId);
    if (j == null) {
      throw new IllegalArgumentException("job " + jobId + " is not stored");
    }
    jobs.put(jobId, new JobRecord(j.definition(), j.intent(), j.layout(), paused));
  }

  @Override
  public void commitVersion(StoreVersion v, List<LayoutUpdate> layouts, Counters floors) {
    write();
    if (v.getId() < version.getId() || v.getMaxCommittedEpoch() < version.getMaxCommittedEpoch()) {
      throw new IllegalStateException("version " + v.getId() + " is older than the stored " + version.getId());
    }
    for (LayoutUpdate u : layouts) {
      if (!jobs.containsKey(u.jobId())) {
        throw new IllegalArgumentException("layout of job " + u.jobId() + ", which is not stored");
      }
    }
    version = v;
    for (LayoutUpdate u : layouts) {
      JobRecord j = jobs.get(u.jobId());
      jobs.put(u.jobId(), new JobRecord(j.definition(), u.intent(), u.layout(), j.paused()));
    }
  }

  @Override
  public void commitCompaction(StoreVersion v, List<SstInfo> dropped, Counters floors) {
    commitVersion(v, List.of(), floors);
  }

  @Override
  public List<ObsoleteSstRecord> obsoleteSsts() {
    return List.of();
  }

  @Override
  public void forgetObsoleteSsts(List<Long> sstIds) {}

  @Override
  public long allocate(IdKind kind, int count) {
    write();
    long first = counters.get(kind);
    counters.put(kind, first + count);
    return first;
  }

  @Override
  public void putWorker(WorkerRecord worker) {
    write();
    workers.put(worker.id(), worker);
  }

  @Override
  public boolean deleteWorker(int workerId) {
    write();
    return workers.remove(workerId) != null;
  }

  @Override
  public void putOptimizerGroup(String name, String properties) {}

  @Override
  public void putOptimizerGroup(OptimizerGroupRecord group) {}

  @Override
  public List<OptimizerGroupRecord> optimizerGroups() {
    return new ArrayList<>();
  }

  @Override
  public boolean deleteOptimizerGroup(String name) {
    return false;
  }

  @Override
  public void putOptimizerResource(OptimizerResourceRecord resource) {}

  @Override
  public List<OptimizerResourceRecord> optimizerResources() {
    return new ArrayList<>();
  }

  @Override
  public boolean deleteOptimizerResource(String resourceId) {
    return false;
  }

  @Override
  public void putPoolResource(dev.tide.meta.store.PoolResourceRecord resource) {}

  @Override
  public List<dev.tide.meta.store.PoolResourceRecord> poolResources() {
    return new ArrayList<>();
  }

  @Override
  public boolean deletePoolResource(String resourceId) {
    return false;
  }

  @Override
  public dev.tide.meta.store.DecisionRecord appendDecision(String scope, long atMs, String decision, int keep) {
    return new dev.tide.meta.store.DecisionRecord(scope, 1, atMs, decision);
  }

  @Override
  public List<dev.tide.meta.store.DecisionRecord> decisions(String scope) {
    return new ArrayList<>();
  }

  @Override
  public void putTableProperties(long tableId, String properties) {}

  @Override
  public SortedMap<Long, String> tableProperties() {
    return new TreeMap<>();
  }

  @Override
  public String describe() {
    return "simulated store";
  }

  @Override
  public void close() {}
}

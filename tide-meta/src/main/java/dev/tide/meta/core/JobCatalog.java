package dev.tide.meta.core;

import dev.tide.meta.schedule.Layouts;
import dev.tide.meta.store.JobRecord;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The jobs meta runs, by id. Thread-safety: confined to the core. */
final class JobCatalog {
  private final TreeMap<Integer, JobEntry> jobs = new TreeMap<>();

  JobCatalog(Map<Integer, JobRecord> stored) {
    for (JobRecord r : stored.values()) {
      jobs.put(r.jobId(), new JobEntry(r.definition(), r.layout(), r.intent(), r.paused(), JobEntry.Phase.RUNNING));
    }
  }

  void add(JobEntry j) {
    jobs.put(j.id(), j);
  }

  void remove(JobEntry j) {
    jobs.remove(j.id());
  }

  Collection<JobEntry> all() {
    return jobs.values();
  }

  boolean isEmpty() {
    return jobs.isEmpty();
  }

  List<JobEntry> inPhase(JobEntry.Phase phase) {
    return jobs.values().stream().filter(j -> j.phase == phase).toList();
  }

  /** Any job, including one being created, with this name. */
  boolean nameTaken(String name) {
    return jobs.values().stream().anyMatch(j -> j.name().equals(name));
  }

  boolean idTaken(int jobId) {
    return jobs.containsKey(jobId);
  }

  /**
   * The visible job named {@code name}.
   *
   * @throws IllegalArgumentException naming the jobs there are, when there is none
   */
  JobEntry byName(String name) {
    for (JobEntry j : jobs.values()) {
      if (j.visible() && j.name().equals(name)) {
        return j;
      }
    }
    throw new IllegalArgumentException("unknown job '" + name + "'; jobs: " + names());
  }

  List<String> names() {
    return jobs.values().stream().filter(JobEntry::visible).map(JobEntry::name).sorted().toList();
  }

  /** The workers any job's layout uses. */
  Set<Integer> hostingWorkers() {
    Set<Integer> out = new TreeSet<>();
    jobs.values().forEach(j -> out.addAll(Layouts.workersOf(j.layout)));
    return out;
  }

  static Set<Integer> hostingWorkers(Map<Integer, JobRecord> stored) {
    Set<Integer> out = new TreeSet<>();
    stored.values().forEach(r -> out.addAll(Layouts.workersOf(r.layout())));
    return out;
  }
}

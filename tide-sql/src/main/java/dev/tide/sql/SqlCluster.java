package dev.tide.sql;

import dev.tide.proto.admin.FragmentsResponse;
import dev.tide.proto.admin.RescheduleReply;
import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.Plan;
import java.util.List;
import java.util.Map;

/**
 * What the SQL engine needs of the cluster it fronts, implemented where meta runs. Errors are
 * {@link IllegalArgumentException} for bad input and {@link IllegalStateException} for what the
 * cluster cannot do now, each with a one-line message.
 */
public interface SqlCluster {
  /** Running jobs by name. */
  Map<String, JobDefinition> jobs();

  /** Compiles and starts {@code plan} as a job named like the plan; returns its definition. */
  JobDefinition create(Plan plan);

  /** Stops the job at the next barrier and forgets it. */
  void drop(String job);

  /** The committed rows of a materialized view, its visible columns only. */
  List<Object[]> scan(String view);

  /** Online reschedule of a job to {@code parallelism} ("N" or "adaptive"), as {@code tide ctl scale}. */
  RescheduleReply scale(String job, String parallelism);

  /** The job's fragments and their actors. */
  FragmentsResponse fragments(String job);

  /**
   * Writes rows into the table job {@code job} and returns the epoch they committed in; refused
   * ({@link IllegalStateException}) when it cannot now (recovery, a paused job), and then nothing was written.
   */
  long write(String job, dev.tide.proto.stream.Dml dml);

  /** The durable catalog objects by name. */
  java.util.SortedMap<String, CatalogEntry> catalog();

  /** Stores a catalog object durably; refused ({@link IllegalArgumentException}) when its name is taken. */
  void putCatalog(CatalogEntry entry);

  /** Forgets a catalog object; refused ({@link IllegalStateException}) while others depend on it. Returns whether it was stored. */
  boolean dropCatalog(String name);
}

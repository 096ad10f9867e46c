package dev.tide.sql;

import dev.tide.proto.plan.JobDefinition;
import dev.tide.proto.plan.TableCatalog;
import dev.tide.stream.plan.PlanBuilder;
import dev.tide.stream.plan.PlanBuilder.Stream;

/**
 * Views over views: a scan of another job's materialized view becomes a source that backfills from
 * the view's committed rows and then follows its changelog ({@link PlanBuilder#view}).
 */
final class UpstreamViews {
  private UpstreamViews() {}

  /** The stream of view {@code name}'s rows and changes: its visible columns first, its hidden key columns after. */
  static Stream scan(PlanBuilder builder, String name, JobDefinition job) {
    TableCatalog t = table(name, job);
    int changelog = 0;
    for (var f : job.getFragmentsList()) {
      for (var n : f.getNodesList()) {
        if (n.hasMaterialize() && n.getMaterialize().getTableId() == t.getTableId()) {
          changelog = n.getMaterialize().getChangelogTableId();
        }
      }
    }
    if (changelog == 0) {
      throw SqlException.notSupported("a materialized view over '" + name + "', which keeps no changelog to follow (it was created"
          + " by tide ctl job create, or by SQL before views over views existed); recreate it with CREATE MATERIALIZED VIEW");
    }
    return builder.view(t, job.getJobId(), job.getVnodeCount(), changelog);
  }

  /** How many columns of view {@code name} queries see. */
  static int visibleColumns(String name, JobDefinition job) {
    return table(name, job).getVisibleColumns();
  }

  private static TableCatalog table(String name, JobDefinition job) {
    return job.getTablesList().stream().filter(t -> t.getIsMv() && t.getName().equals(name)).findFirst()
        .orElseThrow(() -> new SqlException(SqlException.UNDEFINED_TABLE, "unknown materialized view '" + name + "'"));
  }
}

package dev.tide.meta.store;

import java.util.List;

/**
 * The meta store's schema as the ordered list of its {@link Migration}s. Append new migrations;
 * never edit a released one (stores in the field have run it).
 *
 * <p>Tables (version 1):
 *
 * <ul>
 *   <li>{@code schema_version(version, description)}: one row per applied migration (created
 *       before the migrations, by {@link JdbcMetaStore}).
 *   <li>{@code counters(name, next_value)}: the next id of each {@link IdKind}.
 *   <li>{@code store_version(singleton = 1, version_id, max_committed_epoch, version)}: the committed
 *       {@code StoreVersion} protobuf ({@code NULL} until the first commit); id and epoch are
 *       duplicated as columns for the monotonicity check and for operators.
 *   <li>{@code jobs(job_id, name, definition, intent, layout, paused)}: the {@code JobDefinition}
 *       protobuf, {@code JobIntent.render()} text and {@link LayoutText} layout.
 *   <li>{@code workers(worker_id, address, slots, draining)}.
 *   <li>{@code optimizer_groups(name, properties)}: properties text of each optimizer group.
 * </ul>
 *
 * <p>Version 2 (optimizer groups with dynamic allocation):
 *
 * <ul>
 *   <li>{@code optimizer_groups.provider}: the group's resource provider ({@code in-process} for groups
 *       stored before).
 *   <li>{@code optimizer_resources(resource_id, group_name, threads, requested_at_ms)}: resources the scale
 *       keeper requested and has not released; deleted with their group.
 * </ul>
 *
 * <p>Version 3 (obsolete SSTs survive a meta restart; table optimizing properties):
 *
 * <ul>
 *   <li>{@code obsolete_ssts(sst_id, dropped_by_version, sst)}: SSTs a committed compaction dropped whose
 *       objects are not deleted yet, with the {@code SstInfo} protobuf; written in the compaction's
 *       commit transaction, deleted once the object is.
 *   <li>{@code optimizing_tables(table_id, properties)}: properties text ({@code self-optimizing.*}) of
 *       the tables an operator configured.
 * </ul>
 *
 * <p>Version 4 (the compute pool; scaling decisions kept):
 *
 * <ul>
 *   <li>{@code workers.resource_id}: the compute pool's resource a node was launched for ({@code ''} when
 *       started by hand).
 *   <li>{@code pool_resources(resource_id, pool, units, requested_at_ms)}: resources (compute nodes) the
 *       compute pool's keeper requested and has not released.
 *   <li>{@code scaling_decisions(scope, seq, at_ms, decision)}: the latest decisions with their reasons per
 *       scope ({@code job:NAME} for the autoscaler, {@code pool:NAME} for a pool's keeper).
 * </ul>
 */
final class Schema {
  private Schema() {}

  static final List<Migration> MIGRATIONS = Migration.sequence(List.of(
      new Migration(1, "counters, store version, jobs, workers, optimizer groups", List.of(
          "CREATE TABLE counters (name VARCHAR(32) PRIMARY KEY, next_value BIGINT NOT NULL)",
          "INSERT INTO counters (name, next_value) VALUES ('job', 1), ('actor', 1), ('worker', 1), ('sst', 1)",
          "CREATE TABLE store_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version_id BIGINT NOT NULL,"
              + " max_committed_epoch BIGINT NOT NULL, version {BYTES})",
          "INSERT INTO store_version (singleton, version_id, max_committed_epoch, version) VALUES (1, 0, 0, NULL)",
          "CREATE TABLE jobs (job_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, definition {BYTES} NOT NULL,"
              + " intent TEXT NOT NULL, layout TEXT NOT NULL, paused BOOLEAN NOT NULL)",
          "CREATE TABLE workers (worker_id INTEGER PRIMARY KEY, address TEXT NOT NULL, slots INTEGER NOT NULL,"
              + " draining BOOLEAN NOT NULL)",
          "CREATE TABLE optimizer_groups (name TEXT PRIMARY KEY, properties TEXT NOT NULL)")),
      new Migration(2, "optimizer group providers and resources", List.of(
          "ALTER TABLE optimizer_groups ADD COLUMN provider TEXT NOT NULL DEFAULT 'in-process'",
          "CREATE TABLE optimizer_resources (resource_id TEXT PRIMARY KEY,"
              + " group_name TEXT NOT NULL REFERENCES optimizer_groups (name) ON DELETE CASCADE,"
              + " threads INTEGER NOT NULL, requested_at_ms BIGINT NOT NULL)",
          "CREATE INDEX optimizer_resources_group ON optimizer_resources (group_name)")),
      new Migration(3, "obsolete SSTs awaiting deletion, table optimizing properties", List.of(
          "CREATE TABLE obsolete_ssts (sst_id BIGINT PRIMARY KEY, dropped_by_version BIGINT NOT NULL, sst {BYTES} NOT NULL)",
          "CREATE TABLE optimizing_tables (table_id BIGINT PRIMARY KEY, properties TEXT NOT NULL)")),
      new Migration(4, "compute pool resources, worker resource ids, scaling decisions", List.of(
          "ALTER TABLE workers ADD COLUMN resource_id TEXT NOT NULL DEFAULT ''",
          "CREATE TABLE pool_resources (resource_id TEXT PRIMARY KEY, pool TEXT NOT NULL, units INTEGER NOT NULL,"
              + " requested_at_ms BIGINT NOT NULL)",
          "CREATE TABLE scaling_decisions (scope TEXT NOT NULL, seq BIGINT NOT NULL, at_ms BIGINT NOT NULL, decision TEXT NOT NULL,"
              + " PRIMARY KEY (scope, seq))"))));

  /** The schema version this code writes and the newest it can open. */
  static final int LATEST = MIGRATIONS.size();
}

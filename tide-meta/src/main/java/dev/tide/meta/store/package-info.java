/**
 * Meta's durable state. {@link dev.tide.meta.store.MetaStore} is the port the meta driver writes
 * through; {@link dev.tide.meta.store.JdbcMetaStore} implements it on SQLite (the default, one
 * file) and PostgreSQL (production), chosen by the JDBC URL.
 *
 * <p>What is stored and when meta writes it:
 *
 * <ul>
 *   <li>a job (definition, intent, layout, pause flag) when it is created, dropped, paused or its
 *       intent changes without a layout change;
 *   <li>a rescheduled job's layout and intent only together with the state-store version of the
 *       epoch whose barrier carried the reschedule ({@link
 *       dev.tide.meta.store.MetaStore#commitVersion}): after a crash, meta recovers to a committed
 *       epoch and finds exactly the layout that epoch's state was written under;
 *   <li>the state-store version at each checkpoint or compaction commit, with id counters raised
 *       in the same transaction;
 *   <li>workers on registration, drain and deregistration; optimizer groups (name, resource provider,
 *       properties) on change, and the resources their scale keeper requested until it releases them;
 *   <li>the SQL catalog's sources, tables and views ({@link dev.tide.meta.store.CatalogRecord}) when
 *       they are created or dropped, through the meta core like jobs.
 * </ul>
 *
 * <p>The schema is versioned ({@code schema_version}) and migrated on open by an ordered list of
 * SQL steps ({@link dev.tide.meta.store.Schema}). Layouts are kept as text ({@link
 * dev.tide.meta.store.LayoutText}), like intents, so an operator can read them in {@code psql} or
 * {@code sqlite3}; definitions and versions are protobuf bytes.
 */
package dev.tide.meta.store;

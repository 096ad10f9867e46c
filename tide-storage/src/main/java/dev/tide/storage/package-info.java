/**
 * The state store of a compute node: uncommitted write batches in memory over the committed LSM
 * version in object storage.
 *
 * <p>{@link dev.tide.storage.StateStore} is the entry point; {@code object} holds the object-store
 * port, {@code sst} the file format, readers and block cache, {@code merge} the sorted-source
 * merge, {@code compact} the compaction function run by optimizer workers.
 */
package dev.tide.storage;

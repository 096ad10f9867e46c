/**
 * Compaction: merging SSTs into fewer, non-overlapping ones. Planning (which SSTs, which level)
 * belongs to meta; optimizer workers run {@link dev.tide.storage.compact.Compactor#compact} and
 * report the outputs for a compaction delta.
 */
package dev.tide.storage.compact;

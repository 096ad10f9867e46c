/**
 * Sorted string tables: immutable sorted files of (key, epoch, put | tombstone, value) entries.
 *
 * <h2>Format (version 1)</h2>
 *
 * <pre>
 * data block*   entry* | u32 entry count | u32 crc32c(entries | count)
 *   entry       varint key length | varint value length | u8 kind (0 put, 1 tombstone)
 *               | u64 epoch | key | value
 * index         u32 block count | (varint len | first key | varint len | last key
 *               | u64 block offset | u32 block length)* | u32 crc32c
 * bloom         u8 hash count | u32 word count | u64 word* | u32 crc32c
 * footer        u64 index offset | u32 index length | u64 bloom offset | u32 bloom length
 *               | u64 entry count | u32 format version | u32 crc32c(previous 36 bytes) | u64 magic
 * </pre>
 *
 * All fixed-width integers are big-endian. Lengths include the trailing checksum. Index and bloom
 * are contiguous and end where the 48-byte footer begins, so a reader needs two ranged reads to
 * open a file (footer, then index + bloom) and one per data block. Keys are not prefix-compressed:
 * a decoded block is binary-searched in place, which matters more on the read path than the
 * bytes saved.
 */
package dev.tide.storage.sst;

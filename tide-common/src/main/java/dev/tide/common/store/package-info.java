/**
 * The state-store version model shared by meta (which owns and changes the version) and compute
 * nodes (which read through it): key helpers and the pure application of {@code VersionDelta}s.
 *
 * <p>Nothing here does I/O; storage lives in {@code tide-storage}.
 */
package dev.tide.common.store;

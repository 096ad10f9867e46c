/**
 * Meta's compute pool: compute nodes launched and released through a resource provider by the
 * optimizer groups' keeper, with the jobs' wanted slots as demand ({@link dev.tide.meta.pool.ComputeDemand},
 * pure) and {@link dev.tide.meta.pool.ComputePool} as the shell.
 */
package dev.tide.meta.pool;

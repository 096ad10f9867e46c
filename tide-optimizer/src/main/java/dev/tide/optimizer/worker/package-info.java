/**
 * The optimizer executor: {@link dev.tide.optimizer.worker.OptimizerInstance} (K polling threads and a
 * heartbeat over the {@code OptimizerService} gRPC protocol, in-process or as the {@code tide
 * optimizer} process) and {@link dev.tide.optimizer.worker.CompactionRunner} (one task: read the input
 * SSTs from the object store, merge them over the task's key range, write the outputs).
 */
package dev.tide.optimizer.worker;

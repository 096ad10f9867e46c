package dev.tide.optimizer.workload;

/** A task as handed to an optimizer thread or shown to tools: its id, the attempt it runs as, its work and state. */
public record TaskView(long taskId, int attempt, TaskSpec spec, TaskState state) {}

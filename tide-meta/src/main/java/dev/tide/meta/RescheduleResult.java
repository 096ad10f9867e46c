package dev.tide.meta;

import dev.tide.meta.scale.LayoutDiff;

/**
 * What a reschedule did: the diff, and whether it was applied (false for a dry run or a no-op).
 * An applied reschedule is carried by the next barrier; the job refuses another until it commits.
 */
public record RescheduleResult(LayoutDiff diff, boolean applied) {}

package dev.tide.meta;

import dev.tide.meta.scale.JobIntent;
import dev.tide.meta.scale.LayoutDiff;

/**
 * What a reschedule did: the diff, whether it was applied (false for a dry run or a change that moves
 * nothing), the job's actor count before, and its intent after (for a plan that changed a fragment's
 * actor count, that count became the fragment's fixed override). An applied reschedule is answered
 * once the barrier that carried it committed.
 */
public record RescheduleResult(LayoutDiff diff, boolean applied, int actorsBefore, JobIntent intent) {
  public int actorsAfter() {
    return actorsBefore + diff.addedActors() - diff.droppedActors();
  }
}

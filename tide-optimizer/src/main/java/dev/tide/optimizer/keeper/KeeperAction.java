package dev.tide.optimizer.keeper;

/**
 * Something a keeper round did to a group's pool, with the decision's reason: a scale-up (requests),
 * the start of a drain, or the removal of a drained instance. Rounds that only hold a timer or change
 * nothing are not actions.
 *
 * @param atMs when the round decided it
 * @param reason the decision's reason, e.g. {@code "scale-up 2 instances: need 7 threads, ramp 2, cap 12"}
 */
public record KeeperAction(long atMs, String reason) {}

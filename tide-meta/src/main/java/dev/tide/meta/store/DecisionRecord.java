package dev.tide.meta.store;

import java.util.Objects;

/**
 * One scaling decision with its reason, as kept per scope.
 *
 * @param scope {@code job:NAME} (the autoscaler) or {@code pool:NAME} (a pool's keeper)
 * @param seq its place among the scope's decisions (ascending)
 * @param atMs wall time of the decision
 * @param decision what was decided and why
 */
public record DecisionRecord(String scope, long seq, long atMs, String decision) {
  public DecisionRecord {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(decision, "decision");
  }
}

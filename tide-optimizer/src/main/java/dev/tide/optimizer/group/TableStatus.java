package dev.tide.optimizer.group;

/**
 * Optimizing status of a state table. Cycle: IDLE → PENDING → PLANNING → OPTIMIZING → COMMITTING →
 * IDLE; a failed plan returns to PENDING.
 */
public enum TableStatus {
  IDLE,
  PENDING,
  PLANNING,
  OPTIMIZING,
  COMMITTING
}

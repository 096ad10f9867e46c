package dev.tide.meta.core;

import dev.tide.proto.store.SstInfo;
import java.util.List;

/** Something that happened, handed to {@link MetaCore#handle}. */
public sealed interface Event {
  /** A request that expects a {@link Effect.Reply} with the same {@code requestId}. */
  record Request(long requestId, Command command) implements Event {}

  /** A worker completed {@code epoch} (the previous epoch of a barrier injected by meta run {@code runId}). */
  record Collected(int workerId, long runId, long epoch, List<SstInfo> ssts) implements Event {}

  /** Every actor of the worker passed the barrier of prev epoch {@code epoch} (asked for a settling barrier). */
  record Passed(int workerId, long runId, long epoch) implements Event {}

  /** A worker reports a failure of one of its actors ({@code actorId >= 0}) or of itself. */
  record Failed(int workerId, long actorId, String error) implements Event {}

  /** A source actor's bounded input ended; only a barrier commits its final offsets. */
  record BarrierRequested(int workerId, long actorId) implements Event {}

  /**
   * The outcome of an {@link Effect.Call}: {@code failure} is null when the call succeeded. A failure
   * with {@code unreachable} set means the worker could not be reached (or did not answer in time).
   */
  record CallDone(long token, int workerId, String failure, boolean unreachable) implements Event {
    public static CallDone ok(long token, int workerId) {
      return new CallDone(token, workerId, null, false);
    }

    public boolean succeeded() {
      return failure == null;
    }
  }
}

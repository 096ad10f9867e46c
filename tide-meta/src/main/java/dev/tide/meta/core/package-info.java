/**
 * Meta's control plane as a single-threaded core without I/O ({@link dev.tide.meta.core.MetaCore}).
 *
 * <p>Contract: {@code handle(now, event)} and {@code poll(now)} return a {@link dev.tide.meta.core.Step}
 * — effects in the order the driver must run them, and the time of the next poll. Nothing here reads a
 * clock, sleeps, or touches the network or the store: the core is a pure function of what it was
 * given, so a seeded simulation (tests: {@code ControlPlaneSimulation}) replays a failure exactly.
 * Requests ({@link dev.tide.meta.core.Command}) are answered by exactly one
 * {@link dev.tide.meta.core.Effect.Reply}; RPCs to workers are {@link dev.tide.meta.core.Effect.Call}s
 * whose outcomes come back as {@link dev.tide.meta.core.Event.CallDone}. Modelled on Kafka's raft
 * client: one driver reads the time once per step; each state returns its next deadline.
 */
package dev.tide.meta.core;

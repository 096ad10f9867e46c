/**
 * Actors and the data plane inside a compute node.
 *
 * <p>An {@link dev.tide.stream.actor.Actor} runs one fragment instance on its own thread: a tree of
 * push-based {@link dev.tide.stream.actor.Operator}s fed by bounded {@link
 * dev.tide.stream.actor.Channel}s (a full channel blocks the sender: backpressure) and writing to
 * {@link dev.tide.stream.actor.Dispatcher}s (hash by vnode, broadcast, single) whose outputs are
 * {@link dev.tide.stream.actor.Outbox}es: the downstream actor's channel, or a remote link to its
 * node with the same blocking contract. Barriers are aligned
 * across all inputs; operators seal their state writes of the barrier's previous epoch in
 * {@code onBarrier}. A source actor whose bounded input has ended after emitting rows that no
 * barrier has sealed yet tells its node, which asks meta for a barrier at once rather than letting
 * the final offsets wait for the next interval.
 *
 * <p>Online rescaling happens here, at one barrier carrying an Update mutation: new outputs get the
 * barrier before the dispatcher switches, merges swap inputs at alignment (skipping a new
 * upstream's copy of the same barrier), links no longer used are released to the node, dropped
 * actors end after forwarding, and an actor that
 * gained vnodes or splits reads state only after the barrier's previous epoch is committed. Why
 * "wait after forwarding" cannot deadlock: that epoch's commit needs only every actor to pass the
 * barrier, which the waiting actor already did.
 */
package dev.tide.stream.actor;

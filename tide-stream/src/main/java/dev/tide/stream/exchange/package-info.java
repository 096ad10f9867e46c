/**
 * Exchange between actors on different compute nodes: gRPC bidirectional streams with permit-based
 * flow control, so that a remote link has the same backpressure as a local bounded {@code Channel}
 * and nothing is buffered without bound on either side.
 *
 * <h2>Protocol ({@code exchange.proto})</h2>
 *
 * One stream per (upstream actor, downstream actor) link, opened by the <b>upstream (sending)</b>
 * node: the dispatcher pushes, so the side that has data dials, and the receiving node needs nothing
 * but the registry of input channels it already keeps (by (up, down), created by whichever of link
 * and actor comes first). The first message names the link; the receiver answers with the initial
 * window; then data messages (a chunk in {@link dev.tide.stream.exchange.ChunkCodec}'s layout, or a
 * {@code tide.stream.Barrier}) flow to the receiver and permit grants flow back.
 *
 * <p><b>Permits count messages</b>, as a channel's capacity does; a chunk holds at most 1024 rows (up
 * to {@code exchange.max-message-bytes} encoded). The sender spends one per message and blocks the
 * actor thread at zero. The receiver returns a permit once the message is <em>in</em> the downstream
 * channel (so a full channel stops the grants), batching them by {@code exchange.grant-batch}.
 * Invariant per link: messages sent and not yet taken by the downstream actor ≤ window + channel
 * capacity; of those, at most the window are anywhere but the channel (gRPC buffers, the receiver's
 * queue, the message being delivered).
 *
 * <p><b>Failure.</b> Any error status ends the link: the sender's {@code send} throws
 * {@link dev.tide.stream.exchange.ExchangeException}, which fails the actor so its node reports it
 * and recovery rebuilds the job from the last checkpoint. Links do not reconnect or replay.
 *
 * <h2>In a compute node</h2>
 *
 * Meta's dispatcher descriptors name each downstream actor's worker and address (the worker's
 * registered address: it serves this service on the same server as its stream service). The node
 * ({@code node.Links}) gives a dispatcher the downstream actor's input channel when that actor is on
 * its own worker, else a {@link dev.tide.stream.exchange.RemoteOutput}; barriers and mutations take
 * the same path as chunks, so alignment downstream is unchanged.
 *
 * <p><b>One stream per actor pair, one connection per node pair.</b> {@link
 * dev.tide.stream.exchange.ExchangeClient} keeps one gRPC channel (one HTTP/2 connection) per peer,
 * and each link is a stream on it. Per-pair streams keep per-pair permits: a slow downstream actor
 * stops only its own upstream links, never other actors sharing the connection (no head-of-line
 * blocking), and a link's order is the channel's order with nothing to demultiplex. The cost is a
 * delivery thread per inbound link.
 *
 * <p><b>Ending links.</b> A link closes gracefully (half-close, the receiver delivers what was sent)
 * when its actor releases it at a reschedule, ends, or is reset. A reset node also <em>detaches</em>
 * its inbound links ({@link dev.tide.stream.exchange.ExchangeReceiver#detachAll}) instead of failing
 * them: recovery resets every node before rebuilding any, and a failure reported by a not-yet-reset
 * peer would start another recovery after this one. Only a node that goes away (shutdown, crash,
 * broken transport) breaks links with an error status, which fails the actors on the other side.
 *
 * <h2>Parts</h2>
 *
 * <ul>
 *   <li>{@link dev.tide.stream.actor.Outbox}: what a dispatcher writes to (a channel or a remote link).
 *   <li>{@link dev.tide.stream.exchange.RemoteOutput}: the sending end.
 *   <li>{@link dev.tide.stream.exchange.ExchangeClient}: a node's channels to its peers.
 *   <li>{@link dev.tide.stream.exchange.ExchangeReceiver}: the {@code ExchangeService} of a node, the
 *       receiving ends.
 *   <li>{@link dev.tide.stream.exchange.ChunkCodec}: the wire form of chunks and barriers.
 *   <li>{@link dev.tide.stream.exchange.ExchangeConfig}: window, grant batch, message size limit.
 * </ul>
 */
package dev.tide.stream.exchange;

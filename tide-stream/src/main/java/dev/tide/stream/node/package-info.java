/**
 * The compute role. {@link dev.tide.stream.node.ComputeNode} implements the stream service meta
 * calls (build actors, inject barrier, commit version, reset), collects barriers from its actors
 * and uploads each completed epoch's writes as SSTs before reporting them.
 *
 * <p>An actor can pass a barrier before meta's inject request reaches its node (the barrier came
 * through the dataflow from a source on another node), so arrivals are recorded until the expected
 * set is known; completed epochs go to the uploader strictly in epoch order.
 *
 * <p>Links between actors ({@link dev.tide.stream.node.Links}): input channels by (upstream actor,
 * downstream actor) in a {@link dev.tide.stream.node.LocalExchange}, and outputs that are such a
 * channel when the downstream actor is on this worker or a remote exchange link otherwise. The
 * embedded cluster may instead share one {@code LocalExchange} among all its nodes (every link a
 * channel). A link is released when a reschedule removes it, when its actor ends and at a reset, so
 * stopped actors leave none behind.
 */
package dev.tide.stream.node;

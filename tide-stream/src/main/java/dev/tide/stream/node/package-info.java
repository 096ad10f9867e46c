/**
 * The compute role. {@link dev.tide.stream.node.ComputeNode} implements the stream service meta
 * calls (build actors, inject barrier, commit version, reset), collects barriers from its actors
 * and uploads each completed epoch's writes as SSTs before reporting them.
 *
 * <p>An actor can pass a barrier before meta's inject request reaches its node (the barrier came
 * through the dataflow from a source on another node), so arrivals are recorded until the expected
 * set is known; completed epochs go to the uploader strictly in epoch order.
 */
package dev.tide.stream.node;

/**
 * The object-store port of the state store: immutable whole objects addressed by {@code /}-separated
 * paths, written once and read whole or by byte range. {@link dev.tide.storage.object.LocalObjectStore}
 * is the local-directory implementation; an S3 one implements the same interface.
 */
package dev.tide.storage.object;

/**
 * The object-store port of the state store: immutable whole objects addressed by {@code /}-separated
 * paths, written once and read whole or by byte range. {@link dev.tide.storage.object.LocalObjectStore}
 * is the local-directory implementation (the default); {@link dev.tide.storage.object.S3ObjectStore}
 * implements the same interface over an S3 bucket, configured by {@link
 * dev.tide.storage.object.S3Config}.
 */
package dev.tide.storage.object;

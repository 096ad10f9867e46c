/**
 * Sorted entry sources and their merge: the common shape of write batches, SSTs and levels that
 * reads, syncs and compactions combine, newest source first.
 */
package dev.tide.storage.merge;

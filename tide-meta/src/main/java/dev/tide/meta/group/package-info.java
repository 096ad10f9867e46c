/**
 * Optimizer groups in meta: the admin API ({@link dev.tide.meta.group.GroupGrpcService}, {@code tide ctl
 * group}) and the scale keeper's persistence in the meta store ({@link dev.tide.meta.group.MetaGroupStore}).
 * The groups themselves, their validation and their scale keepers are
 * {@link dev.tide.optimizer.keeper.GroupKeepers}; meta wires one per process (leader only) with its
 * resource providers and the optimizing workload as {@link dev.tide.optimizer.keeper.GroupLoadSource}.
 */
package dev.tide.meta.group;

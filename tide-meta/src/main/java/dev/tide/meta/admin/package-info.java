/**
 * The operator's API of meta ({@code tide.admin.AdminService} in {@code admin.proto}): cluster and
 * fragment views, reschedule and scale with dry runs, pause and resume, adding and draining workers,
 * barrier status. {@link dev.tide.meta.admin.AdminGrpcService} is a thin adapter onto
 * {@link dev.tide.meta.Meta}: every request goes through the same calls a scaling policy uses, and
 * every refusal reaches the client as one status line naming the problem.
 */
package dev.tide.meta.admin;

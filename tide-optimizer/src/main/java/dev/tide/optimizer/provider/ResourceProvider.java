package dev.tide.optimizer.provider;

import java.util.List;
import java.util.Map;

/**
 * Starts and stops optimizer instances for optimizer groups (spec 6). The scale keeper calls it from
 * its driver thread; implementations must nevertheless be thread-safe, since group deletion and
 * shutdown may call them from other threads.
 *
 * <p>Both operations are idempotent: requesting a resource id that is already running, or releasing
 * one that is not, succeeds and changes nothing. A failure is a {@link ProviderException}: a request
 * that throws launched nothing (the keeper retries its demand on a later round); a release that throws
 * may have left the resource running (the keeper keeps the drain and retries).
 */
public interface ResourceProvider extends AutoCloseable {
  /** The provider's name as groups name it: {@code in-process}, {@code local}, {@code kubernetes}, {@code external}. */
  String name();

  /** Whether the scale keeper may request and release instances here (false for hand-started ones). */
  default boolean supportsDynamicAllocation() {
    return true;
  }

  /**
   * Checks the provider settings among a group's properties when the group is created or updated.
   *
   * @throws IllegalArgumentException naming the property, the value and the rule
   */
  default void validate(Map<String, String> properties) {}

  /** Launches one optimizer instance. */
  void request(LaunchSpec spec);

  /** Stops the instance launched for {@code resourceId}. */
  void release(String resourceId);

  /** The instances this provider currently holds, sorted by resource id. */
  List<LaunchSpec> list();

  /** Releases what the provider holds in this process (threads, child processes); remote resources stay. */
  @Override
  default void close() {}
}

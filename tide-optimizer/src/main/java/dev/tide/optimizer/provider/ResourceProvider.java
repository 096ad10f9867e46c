package dev.tide.optimizer.provider;

import dev.tide.common.config.ConfigOption;
import java.util.List;

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
   * The provider settings a group's properties may hold besides the {@code GroupConfig} options (such
   * as {@code kubernetes.memory}), each with its rule: checked when a group is created, updated or
   * loaded, where any other key is refused.
   */
  default List<ConfigOption<?>> groupOptions() {
    return List.of();
  }

  /** Launches one optimizer instance. */
  void request(LaunchSpec spec);

  /** Stops the instance launched for {@code resourceId}. */
  void release(String resourceId);

  /**
   * The instances this provider currently holds, sorted by resource id, whether or not they run yet
   * (the keeper reconciles its records with this list). Throws a {@link ProviderException} when the
   * provider cannot tell.
   */
  List<LaunchSpec> list();

  /** Releases what the provider holds in this process (threads, child processes); remote resources stay. */
  @Override
  default void close() {}
}

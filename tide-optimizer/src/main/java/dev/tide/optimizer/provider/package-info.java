/**
 * Resource providers: what launches and stops optimizer instances for a group (spec 6).
 *
 * <ul>
 *   <li>{@link dev.tide.optimizer.provider.InProcessProvider} ({@code in-process}, the embedded default):
 *       threads of the meta JVM, through a factory the deployment supplies;
 *   <li>{@link dev.tide.optimizer.provider.LocalProcessProvider} ({@code local}): optimizer JVMs on this
 *       machine ({@code tide optimizer …}), stopped with SIGTERM then SIGKILL;
 *   <li>{@link dev.tide.optimizer.provider.KubernetesProvider} ({@code kubernetes}): one single-replica
 *       Deployment per instance through the fabric8 client, labelled with group and resource id;
 *   <li>{@link dev.tide.optimizer.provider.ExternalProvider} ({@code external}): started by hand;
 *       dynamic allocation is refused.
 * </ul>
 *
 * <p>Request and release are idempotent and report failures as
 * {@link dev.tide.optimizer.provider.ProviderException}; the scale keeper turns them into retries, and
 * reconciles its records with {@link dev.tide.optimizer.provider.ResourceProvider#list}. A provider's
 * settings of a group live among the group's properties under the provider's prefix
 * ({@code local.}, {@code kubernetes.}), declared as typed options by
 * {@link dev.tide.optimizer.provider.ResourceProvider#groupOptions} and checked with the group's
 * configuration. Meta's own settings of the {@code kubernetes} provider (namespace, image, meta
 * address, Secrets) are {@link dev.tide.optimizer.provider.KubernetesOptions}, checked when meta starts.
 */
package dev.tide.optimizer.provider;

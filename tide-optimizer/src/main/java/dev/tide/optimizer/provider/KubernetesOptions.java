package dev.tide.optimizer.provider;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.storage.object.S3Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Meta's options of the {@code kubernetes} resource provider, and the provider they describe. Off by
 * default; when {@link #ENABLED} is set, every other option is checked when meta starts (and the
 * Secrets the pods need are looked up), so a misconfigured provider stops meta with one clear line
 * instead of leaving pods that never register.
 *
 * <p>The optimizer pods need what any {@code tide optimizer} needs: meta's address as they reach it,
 * the cluster token (meta listens beyond loopback, so it has one), and the object store, which must be
 * S3 since pods cannot see meta's local directory.
 */
public final class KubernetesOptions {
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final Pattern HOST_PORT = Pattern.compile("[^\\s:/]+:\\d{1,5}");
  private static final String SECRET_RULE = "the name of a Secret in the namespace (lowercase letters, digits, '-' and '.')";

  public static final ConfigOption<Boolean> ENABLED = ConfigOption.boolOption("optimizer.kubernetes.enabled", false,
      "Offer the resource provider 'kubernetes': optimizer groups whose instances are single-replica Deployments.");
  public static final ConfigOption<String> API_SERVER = ConfigOption.stringOption("optimizer.kubernetes.api-server", "",
      "URL of the Kubernetes API server; empty: configured as kubectl is (in-cluster service account, or KUBECONFIG / ~/.kube/config).")
      .withRule(v -> v.isEmpty() || v.startsWith("https://") || v.startsWith("http://"), "empty or an http:// or https:// URL");
  public static final ConfigOption<String> NAMESPACE = ConfigOption.stringOption("optimizer.kubernetes.namespace", "",
      "Namespace of the optimizer Deployments; empty: the client's namespace (meta's own when it runs in the cluster), else default.")
      .withRule(v -> v.isEmpty() || DNS_SUBDOMAIN.matcher(v).matches() && v.length() <= 63, "empty or a namespace name");
  public static final ConfigOption<String> IMAGE = ConfigOption.stringOption("optimizer.kubernetes.image", "",
      "Container image of the optimizers, with tide as its entry point (a group may override it with kubernetes.image).");
  public static final ConfigOption<String> META_ADDRESS = ConfigOption.stringOption("optimizer.kubernetes.meta-address", "",
      "HOST:PORT at which optimizer pods reach meta's gRPC port, e.g. the address of meta's Service.")
      .withRule(v -> v.isEmpty() || HOST_PORT.matcher(v).matches(), "HOST:PORT, like tide-meta.tide.svc:5690");
  public static final ConfigOption<String> TOKEN_SECRET = ConfigOption.stringOption("optimizer.kubernetes.token-secret", "",
      "Secret holding the cluster token under key 'token', passed to the pods as TIDE_TOKEN.")
      .withRule(v -> v.isEmpty() || DNS_SUBDOMAIN.matcher(v).matches(), SECRET_RULE);
  public static final ConfigOption<String> CONFIG_SECRET = ConfigOption.stringOption("optimizer.kubernetes.config-secret", "",
      "Secret holding the optimizers' configuration file under key 'optimizer.properties': the s3.* keys of the object store.")
      .withRule(v -> v.isEmpty() || DNS_SUBDOMAIN.matcher(v).matches(), SECRET_RULE);

  /** The options, in documentation order. */
  public static final List<ConfigOption<?>> ALL = List.of(ENABLED, API_SERVER, NAMESPACE, IMAGE, META_ADDRESS, TOKEN_SECRET,
      CONFIG_SECRET);

  private KubernetesOptions() {}

  /**
   * The provider {@code meta} configures, if enabled: its settings validated, its client built and its
   * Secrets found.
   *
   * @throws ConfigException naming the option that is missing or does not fit the others
   * @throws IllegalStateException when the API server cannot be reached or a Secret is missing
   */
  public static Optional<KubernetesProvider> open(Config meta) {
    if (!meta.get(ENABLED)) {
      return Optional.empty();
    }
    String image = required(meta, IMAGE, "the optimizers' container image, e.g. tide:0.1");
    String metaAddress = required(meta, META_ADDRESS, "HOST:PORT at which pods reach meta, like tide-meta.tide.svc:5690");
    String tokenSecret = required(meta, TOKEN_SECRET, "a Secret with key 'token' holding the cluster token (meta listens beyond"
        + " loopback for the pods to reach it, so it has a token)");
    String configSecret = required(meta, CONFIG_SECRET, "a Secret with key 'optimizer.properties' holding the optimizers' s3.* keys");
    if (!meta.isSet(S3Config.BUCKET)) {
      throw new ConfigException(ENABLED.key(), "true", "false unless the object store is S3 (s3.bucket): optimizer pods"
          + " cannot read meta's local object directory");
    }
    // One retry at most: the keeper retries failed calls at its own spacing, and the client's backoff
    // (up to 10 retries by default) would only hold the keeper's lock, and meta's start, for long.
    ConfigBuilder cb = new ConfigBuilder(io.fabric8.kubernetes.client.Config.autoConfigure(null)).withRequestRetryBackoffLimit(1);
    if (!meta.get(API_SERVER).isEmpty()) {
      cb.withMasterUrl(meta.get(API_SERVER));
    }
    KubernetesClient client = new KubernetesClientBuilder().withConfig(cb.build()).build();
    String namespace = !meta.get(NAMESPACE).isEmpty() ? meta.get(NAMESPACE)
        : Optional.ofNullable(client.getNamespace()).orElse("default");
    KubernetesProvider provider = new KubernetesProvider(client, new KubernetesProvider.Settings(namespace, image, metaAddress,
        Optional.of(tokenSecret), Optional.of(configSecret)), true);
    try {
      provider.checkSecrets();
    } catch (RuntimeException e) {
      provider.close();
      throw e;
    }
    return Optional.of(provider);
  }

  private static String required(Config meta, ConfigOption<String> option, String what) {
    String v = meta.get(option);
    if (v.isBlank()) {
      throw new ConfigException(option.key(), "missing: required when " + ENABLED.key() + " is true (" + what + ")");
    }
    return v;
  }
}

package dev.tide.optimizer.provider;

import dev.tide.common.auth.ClusterToken;
import dev.tide.common.config.ConfigOption;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Optimizer instances (or, with {@link LaunchRole#COMPUTE}, compute nodes of meta's compute pool) as
 * Kubernetes Deployments of one replica, one per instance (a Deployment, not a
 * bare Pod, so that a crashed or evicted pod comes back with the same resource id). Each carries the
 * labels {@value #GROUP_LABEL} and {@value #RESOURCE_LABEL}; its container runs
 * {@code optimizer --meta … --threads K --group G --resource-id R --config }{@value #CONFIG_PATH} (the
 * image's entry point is {@code tide}). Two Secrets of the namespace stay out of the Deployment itself:
 * the token, in {@code TIDE_TOKEN} from key {@value #TOKEN_KEY} of the token Secret, and the optimizer's
 * configuration file (its S3 object store), key {@value #CONFIG_KEY} of the config Secret mounted at
 * {@value #CONFIG_PATH}. CPU and memory come from the group properties {@code kubernetes.cpu} (default: K
 * cores) and {@code kubernetes.memory} (default {@value #DEFAULT_MEMORY}), requests equal to limits;
 * {@code kubernetes.image} overrides the image.
 *
 * <p>Request creates the Deployment (an existing one is left as it is), release deletes it (a missing
 * one is fine): both idempotent. {@link #list()} returns every Deployment of the namespace of the
 * provider's role ({@value #APP_LABEL} {@code tide-optimizer} or {@code tide-compute}), so the namespace
 * belongs to one Tide cluster. A compute node's container runs {@code compute --meta … --slots K --resource-id R}. Thread-safety: the fabric8 client is thread-safe; so is this.
 */
public final class KubernetesProvider implements ResourceProvider {
  public static final String NAME = "kubernetes";
  public static final String GROUP_LABEL = "tide.dev/optimizer-group";
  public static final String RESOURCE_LABEL = "tide.dev/resource-id";
  public static final String APP_LABEL = "app.kubernetes.io/name";
  public static final String APP = "tide-optimizer";
  public static final String DEFAULT_MEMORY = "1Gi";
  /** The key of the token in the {@linkplain Settings#tokenSecret token Secret}. */
  public static final String TOKEN_KEY = "token";
  /** The key of the optimizer's {@code --config} file in the {@linkplain Settings#configSecret config Secret}. */
  public static final String CONFIG_KEY = "optimizer.properties";
  /** The port of a compute pod's stream and exchange services. */
  public static final int COMPUTE_PORT = 5700;
  /** Where the config Secret's file is mounted in the optimizer container. */
  public static final String CONFIG_PATH = "/etc/tide/" + CONFIG_KEY;

  private static final String QUANTITY_RULE = "a positive Kubernetes quantity such as 2, 500m, 1Gi or 512Mi";
  public static final ConfigOption<String> CPU = ConfigOption.stringOption("kubernetes.cpu", null,
      "CPU of each optimizer pod of the group (request = limit); default: K cores.")
      .withRule(KubernetesProvider::isPositiveQuantity, QUANTITY_RULE);
  public static final ConfigOption<String> MEMORY = ConfigOption.stringOption("kubernetes.memory", DEFAULT_MEMORY,
      "Memory of each optimizer pod of the group (request = limit).")
      .withRule(KubernetesProvider::isPositiveQuantity, QUANTITY_RULE);
  public static final ConfigOption<String> IMAGE = ConfigOption.stringOption("kubernetes.image", null,
      "Container image of the group's optimizers (entry point tide); default: optimizer.kubernetes.image of meta.")
      .withRule(v -> !v.isBlank(), "a container image reference such as tide:0.1");

  /**
   * @param namespace where the Deployments go
   * @param image the default container image (with {@code tide} as entry point)
   * @param metaAddress {@code HOST:PORT} of meta's optimizer API as pods reach it
   * @param tokenSecret the Secret (in {@code namespace}) whose key {@value #TOKEN_KEY} holds the token, if
   *     meta requires one
   * @param configSecret the Secret (in {@code namespace}) whose key {@value #CONFIG_KEY} is the optimizer's
   *     configuration file (the {@code s3.*} keys of the object store), if the optimizers need one
   * @param role what the pods run
   */
  public record Settings(String namespace, String image, String metaAddress, Optional<String> tokenSecret,
      Optional<String> configSecret, LaunchRole role) {
    public Settings {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(image, "image");
      Objects.requireNonNull(metaAddress, "metaAddress");
      Objects.requireNonNull(tokenSecret, "tokenSecret");
      Objects.requireNonNull(configSecret, "configSecret");
    }

    /** Optimizer pods. */
    public Settings(String namespace, String image, String metaAddress, Optional<String> tokenSecret, Optional<String> configSecret) {
      this(namespace, image, metaAddress, tokenSecret, configSecret, LaunchRole.OPTIMIZER);
    }

    /** The same settings for pods of {@code role}. */
    public Settings forRole(LaunchRole role) {
      return new Settings(namespace, image, metaAddress, tokenSecret, configSecret, role);
    }
  }

  private final KubernetesClient client;
  private final Settings settings;
  private final boolean ownsClient;

  /** A provider over {@code client}, which the caller keeps and closes. */
  public KubernetesProvider(KubernetesClient client, Settings settings) {
    this(client, settings, false);
  }

  /** @param ownsClient whether {@link #close()} closes {@code client} */
  KubernetesProvider(KubernetesClient client, Settings settings, boolean ownsClient) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.ownsClient = ownsClient;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<ConfigOption<?>> groupOptions() {
    return List.of(CPU, MEMORY, IMAGE);
  }

  public Settings settings() {
    return settings;
  }

  /** A provider of pods of {@code role} over this one's client (which this one keeps owning) and settings. */
  public KubernetesProvider forRole(LaunchRole role) {
    return new KubernetesProvider(client, settings.forRole(role), false);
  }

  private LaunchRole role() {
    return settings.role();
  }

  /** The Deployment's name of an optimizer's resource id. */
  public static String deploymentName(String resourceId) {
    return deploymentName(LaunchRole.OPTIMIZER, resourceId);
  }

  /** The Deployment's name for a resource id of {@code role}. */
  public static String deploymentName(LaunchRole role, String resourceId) {
    return role.app() + "-" + resourceId;
  }

  private static boolean isPositiveQuantity(String value) {
    try {
      return Quantity.getAmountInBytes(new Quantity(value)).signum() > 0;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Checks that the Secrets the pods need exist in the namespace with their keys, so that a
   * misconfiguration shows when meta starts, not in the logs of pods that never register.
   *
   * @throws IllegalStateException naming the namespace, the Secret, the key and the option to fix
   */
  public void checkSecrets() {
    checkSecret(settings.tokenSecret(), TOKEN_KEY, KubernetesOptions.TOKEN_SECRET.key());
    checkSecret(settings.configSecret(), CONFIG_KEY, KubernetesOptions.CONFIG_SECRET.key());
  }

  private void checkSecret(Optional<String> name, String key, String option) {
    if (name.isEmpty()) {
      return;
    }
    Secret s;
    try {
      s = client.secrets().inNamespace(settings.namespace()).withName(name.get()).get();
    } catch (KubernetesClientException e) {
      throw new IllegalStateException("kubernetes provider: cannot read Secret " + settings.namespace() + "/" + name.get()
          + " (" + option + ") at " + client.getMasterUrl() + ": " + e.getMessage(), e);
    }
    boolean hasKey = s != null && (s.getData() != null && s.getData().containsKey(key)
        || s.getStringData() != null && s.getStringData().containsKey(key));
    if (!hasKey) {
      throw new IllegalStateException("kubernetes provider: " + (s == null ? "no Secret " : "Secret ") + settings.namespace() + "/"
          + name.get() + (s == null ? "" : " has no key '" + key + "'") + " (" + option + "); create it with key '" + key
          + "', e.g. kubectl -n " + settings.namespace() + " create secret generic " + name.get() + " --from-file=" + key);
    }
  }

  /** The Deployment a request creates. @throws IllegalArgumentException on a bad {@code kubernetes.cpu} or {@code kubernetes.memory} */
  public Deployment deployment(LaunchSpec spec) {
    LaunchRole role = settings.role();
    Map<String, String> labels = new TreeMap<>(Map.of(APP_LABEL, role.app(), GROUP_LABEL, spec.group(), RESOURCE_LABEL, spec.resourceId()));
    Map<String, Quantity> resources = Map.of(
        "cpu", new Quantity(CPU.parse(spec.properties().getOrDefault(CPU.key(), String.valueOf(spec.threads())))),
        "memory", new Quantity(MEMORY.parse(spec.properties().getOrDefault(MEMORY.key(), DEFAULT_MEMORY))));
    List<String> args = new ArrayList<>(role.args(settings.metaAddress(), spec));
    settings.configSecret().ifPresent(s -> args.addAll(List.of("--config", CONFIG_PATH)));
    List<EnvVar> env = new ArrayList<>();
    settings.tokenSecret().ifPresent(secret -> env.add(new EnvVarBuilder().withName(ClusterToken.ENV)
        .withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(TOKEN_KEY).endSecretKeyRef().endValueFrom().build()));
    if (role == LaunchRole.COMPUTE) {
      // Meta dials a compute node at the address it registers: the pod's IP (Kubernetes expands $(POD_IP) in args).
      env.add(new EnvVarBuilder().withName("POD_IP").withNewValueFrom().withNewFieldRef().withFieldPath("status.podIP").endFieldRef()
          .endValueFrom().build());
      args.addAll(List.of("--listen", "$(POD_IP):" + COMPUTE_PORT));
    }
    DeploymentBuilder b = new DeploymentBuilder()
        .withNewMetadata().withName(deploymentName(role, spec.resourceId())).withNamespace(settings.namespace()).withLabels(labels).endMetadata()
        .withNewSpec().withReplicas(1)
        .withNewSelector().withMatchLabels(Map.of(RESOURCE_LABEL, spec.resourceId())).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels).endMetadata()
        .withNewSpec()
        .addNewContainer().withName(role.args(settings.metaAddress(), spec).get(0)).withImage(spec.properties().getOrDefault(IMAGE.key(), settings.image())).withArgs(args)
        .withEnv(env)
        .withNewResources().withRequests(resources).withLimits(resources).endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec();
    settings.configSecret().ifPresent(secret -> b.editSpec().editTemplate().editSpec()
        .addNewVolume().withName("tide-config").withNewSecret().withSecretName(secret).addNewItem().withKey(CONFIG_KEY)
        .withPath(CONFIG_KEY).endItem().endSecret().endVolume()
        .editFirstContainer().addNewVolumeMount().withName("tide-config").withMountPath("/etc/tide").withReadOnly(true)
        .endVolumeMount().endContainer()
        .endSpec().endTemplate().endSpec());
    return b.build();
  }

  @Override
  public void request(LaunchSpec spec) {
    Deployment d;
    try {
      d = deployment(spec);
    } catch (IllegalArgumentException e) {
      throw new ProviderException("kubernetes " + role().noun() + " " + spec.resourceId() + " of group " + spec.group() + " refused: "
          + e.getMessage(), e);
    }
    try {
      client.apps().deployments().inNamespace(settings.namespace()).resource(d).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return; // already requested: idempotent
      }
      throw new ProviderException("kubernetes " + role().noun() + " " + spec.resourceId() + " of group " + spec.group()
          + ": creating Deployment " + settings.namespace() + "/" + d.getMetadata().getName() + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void release(String resourceId) {
    String name = deploymentName(role(), resourceId);
    try {
      client.apps().deployments().inNamespace(settings.namespace()).withName(name).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return;
      }
      throw new ProviderException("kubernetes " + role().noun() + " " + resourceId + ": deleting Deployment " + settings.namespace() + "/" + name
          + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public List<LaunchSpec> list() {
    List<LaunchSpec> out = new ArrayList<>();
    try {
      for (Deployment d : client.apps().deployments().inNamespace(settings.namespace()).withLabel(APP_LABEL, role().app()).list().getItems()) {
        Map<String, String> labels = d.getMetadata().getLabels();
        List<String> args = d.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        int threads = role().units(args);
        out.add(LaunchSpec.of(labels.get(GROUP_LABEL), labels.get(RESOURCE_LABEL), threads, Map.of()));
      }
    } catch (KubernetesClientException e) {
      throw new ProviderException("listing " + role().app() + " Deployments in namespace " + settings.namespace() + " failed: " + e.getMessage(), e);
    }
    out.sort(Comparator.comparing(LaunchSpec::resourceId));
    return out;
  }

  /** Closes the client if this provider built it; the Deployments stay. */
  @Override
  public void close() {
    if (ownsClient) {
      client.close();
    }
  }
}

package dev.tide.optimizer.provider;

import dev.tide.common.auth.ClusterToken;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
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
 * Optimizer instances as Kubernetes Deployments of one replica, one per instance (a Deployment, not a
 * bare Pod, so that a crashed or evicted pod comes back with the same resource id). Each carries the
 * labels {@value #GROUP_LABEL} and {@value #RESOURCE_LABEL}; its container runs
 * {@code optimizer --meta … --threads K --group G --resource-id R} (the image's entry point is
 * {@code tide}), the token, if any, in {@code TIDE_TOKEN} from key {@value #TOKEN_KEY} of a Secret (never in
 * the Deployment itself), with CPU and memory from the group properties {@value #CPU} (default: K cores) and
 * {@value #MEMORY} (default {@value #DEFAULT_MEMORY}), requests equal to limits; {@value #IMAGE}
 * overrides the image.
 *
 * <p>Request creates the Deployment (an existing one is left as it is), release deletes it (a missing
 * one is fine): both idempotent. Thread-safety: the fabric8 client is thread-safe; so is this.
 */
public final class KubernetesProvider implements ResourceProvider {
  public static final String NAME = "kubernetes";
  public static final String GROUP_LABEL = "tide.dev/optimizer-group";
  public static final String RESOURCE_LABEL = "tide.dev/resource-id";
  public static final String APP_LABEL = "app.kubernetes.io/name";
  public static final String APP = "tide-optimizer";
  public static final String CPU = "kubernetes.cpu";
  public static final String MEMORY = "kubernetes.memory";
  public static final String IMAGE = "kubernetes.image";
  public static final String DEFAULT_MEMORY = "1Gi";
  /** The key of the token in the {@linkplain Settings#tokenSecret token Secret}. */
  public static final String TOKEN_KEY = "token";

  /**
   * @param namespace where the Deployments go
   * @param image the default container image (with {@code tide} as entry point)
   * @param metaAddress {@code HOST:PORT} of meta's optimizer API as pods reach it
   * @param tokenSecret the Secret (in {@code namespace}) whose key {@value #TOKEN_KEY} holds the token, if
   *     meta requires one
   */
  public record Settings(String namespace, String image, String metaAddress, Optional<String> tokenSecret) {
    public Settings {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(image, "image");
      Objects.requireNonNull(metaAddress, "metaAddress");
      Objects.requireNonNull(tokenSecret, "tokenSecret");
    }
  }

  private final KubernetesClient client;
  private final Settings settings;

  public KubernetesProvider(KubernetesClient client, Settings settings) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The Deployment's name for a resource id. */
  public static String deploymentName(String resourceId) {
    return APP + "-" + resourceId;
  }

  /** Refuses a {@value #CPU} or {@value #MEMORY} that is not a Kubernetes quantity. */
  @Override
  public void validate(Map<String, String> properties) {
    for (String key : List.of(CPU, MEMORY)) {
      String v = properties.get(key);
      if (v != null) {
        quantity(key, v);
      }
    }
  }

  private static Quantity quantity(String key, String value) {
    try {
      Quantity q = new Quantity(value);
      if (Quantity.getAmountInBytes(q).signum() <= 0) {
        throw new IllegalArgumentException("not positive");
      }
      return q;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("invalid value '" + value + "' for option '" + key
          + "': must be a positive Kubernetes quantity such as 2, 500m, 1Gi or 512Mi");
    }
  }

  /** The Deployment a request creates. @throws IllegalArgumentException on a bad {@value #CPU} or {@value #MEMORY} */
  public Deployment deployment(LaunchSpec spec) {
    Map<String, String> labels = new TreeMap<>(Map.of(APP_LABEL, APP, GROUP_LABEL, spec.group(), RESOURCE_LABEL, spec.resourceId()));
    Map<String, Quantity> resources = Map.of(
        "cpu", quantity(CPU, spec.properties().getOrDefault(CPU, String.valueOf(spec.threads()))),
        "memory", quantity(MEMORY, spec.properties().getOrDefault(MEMORY, DEFAULT_MEMORY)));
    List<String> args = new ArrayList<>(List.of("optimizer", "--meta", settings.metaAddress(), "--threads",
        String.valueOf(spec.threads()), "--group", spec.group(), "--resource-id", spec.resourceId()));
    List<EnvVar> env = settings.tokenSecret().map(secret -> List.of(new EnvVarBuilder().withName(ClusterToken.ENV)
        .withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(TOKEN_KEY).endSecretKeyRef().endValueFrom().build()))
        .orElse(List.of());
    return new DeploymentBuilder()
        .withNewMetadata().withName(deploymentName(spec.resourceId())).withNamespace(settings.namespace()).withLabels(labels).endMetadata()
        .withNewSpec().withReplicas(1)
        .withNewSelector().withMatchLabels(Map.of(RESOURCE_LABEL, spec.resourceId())).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(labels).endMetadata()
        .withNewSpec()
        .addNewContainer().withName("optimizer").withImage(spec.properties().getOrDefault(IMAGE, settings.image())).withArgs(args)
        .withEnv(env)
        .withNewResources().withRequests(resources).withLimits(resources).endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  @Override
  public void request(LaunchSpec spec) {
    Deployment d;
    try {
      d = deployment(spec);
    } catch (IllegalArgumentException e) {
      throw new ProviderException("kubernetes optimizer " + spec.resourceId() + " of group " + spec.group() + " refused: " + e.getMessage(), e);
    }
    try {
      client.apps().deployments().inNamespace(settings.namespace()).resource(d).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return; // already requested: idempotent
      }
      throw new ProviderException("kubernetes optimizer " + spec.resourceId() + " of group " + spec.group()
          + ": creating Deployment " + settings.namespace() + "/" + d.getMetadata().getName() + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void release(String resourceId) {
    String name = deploymentName(resourceId);
    try {
      client.apps().deployments().inNamespace(settings.namespace()).withName(name).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return;
      }
      throw new ProviderException("kubernetes optimizer " + resourceId + ": deleting Deployment " + settings.namespace() + "/" + name
          + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public List<LaunchSpec> list() {
    List<LaunchSpec> out = new ArrayList<>();
    try {
      for (Deployment d : client.apps().deployments().inNamespace(settings.namespace()).withLabel(APP_LABEL, APP).list().getItems()) {
        Map<String, String> labels = d.getMetadata().getLabels();
        List<String> args = d.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        int threads = Integer.parseInt(args.get(args.indexOf("--threads") + 1));
        out.add(LaunchSpec.of(labels.get(GROUP_LABEL), labels.get(RESOURCE_LABEL), threads, Map.of()));
      }
    } catch (KubernetesClientException e) {
      throw new ProviderException("listing optimizer Deployments in namespace " + settings.namespace() + " failed: " + e.getMessage(), e);
    }
    out.sort(Comparator.comparing(LaunchSpec::resourceId));
    return out;
  }
}

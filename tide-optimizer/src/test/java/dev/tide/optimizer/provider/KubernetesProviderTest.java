package dev.tide.optimizer.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tide.optimizer.group.GroupConfig;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The kubernetes provider against the fabric8 mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class KubernetesProviderTest {
  static final String NS = "tide";
  static KubernetesClient client;
  KubernetesProvider provider;

  @BeforeEach
  void setUp() {
    client.apps().deployments().inNamespace(NS).delete();
    provider = new KubernetesProvider(client, new KubernetesProvider.Settings(NS, "tide:latest", "meta.tide:7070", Optional.of("tide-token"),
        Optional.of("tide-optimizer-config")));
  }

  private List<Deployment> deployments() {
    return client.apps().deployments().inNamespace(NS).list().getItems();
  }

  @Test
  void requestCreatesOneDeploymentWithGroupAndResourceLabelsAndResources() {
    provider.request(LaunchSpec.of("heavy", "heavy-1-0", 4, Map.of("kubernetes.memory", "2Gi")));

    Deployment d = client.apps().deployments().inNamespace(NS).withName("tide-optimizer-heavy-1-0").get();
    assertThat(d).isNotNull();
    assertThat(d.getMetadata().getLabels()).containsEntry(KubernetesProvider.GROUP_LABEL, "heavy")
        .containsEntry(KubernetesProvider.RESOURCE_LABEL, "heavy-1-0");
    assertThat(d.getSpec().getReplicas()).isEqualTo(1);
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels()).containsEntry(KubernetesProvider.RESOURCE_LABEL, "heavy-1-0");
    var container = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).isEqualTo("tide:latest");
    assertThat(container.getArgs()).containsExactly("optimizer", "--meta", "meta.tide:7070", "--threads", "4", "--group", "heavy",
        "--resource-id", "heavy-1-0", "--config", "/etc/tide/optimizer.properties");
    // The object store configuration comes from a Secret mounted read-only where --config points.
    assertThat(container.getVolumeMounts()).singleElement().satisfies(m -> {
      assertThat(m.getMountPath()).isEqualTo("/etc/tide");
      assertThat(m.getReadOnly()).isTrue();
    });
    assertThat(d.getSpec().getTemplate().getSpec().getVolumes()).singleElement().satisfies(v -> {
      assertThat(v.getName()).isEqualTo(container.getVolumeMounts().get(0).getName());
      assertThat(v.getSecret().getSecretName()).isEqualTo("tide-optimizer-config");
      assertThat(v.getSecret().getItems()).singleElement().satisfies(i -> assertThat(i.getKey()).isEqualTo("optimizer.properties"));
    });
    // The token comes from a Secret: neither the args nor the Deployment hold it.
    assertThat(container.getEnv()).singleElement().satisfies(e -> {
      assertThat(e.getName()).isEqualTo("TIDE_TOKEN");
      assertThat(e.getValue()).isNull();
      assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("tide-token");
      assertThat(e.getValueFrom().getSecretKeyRef().getKey()).isEqualTo("token");
    });
    assertThat(container.getResources().getRequests()).containsEntry("cpu", new Quantity("4")).containsEntry("memory", new Quantity("2Gi"));
    assertThat(container.getResources().getLimits()).isEqualTo(container.getResources().getRequests());
    assertThat(provider.list()).extracting(LaunchSpec::resourceId, LaunchSpec::group, LaunchSpec::threads)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("heavy-1-0", "heavy", 4));
  }

  @Test
  void computePodsRunTheComputeCommandAtTheirPodIpAndAreListedApartFromOptimizers() {
    KubernetesProvider compute = provider.forRole(LaunchRole.COMPUTE);
    provider.request(LaunchSpec.of("default", "default-1-0", 2, Map.of()));
    compute.request(LaunchSpec.of("compute", "compute-5-0", 4, Map.of()));

    Deployment d = client.apps().deployments().inNamespace(NS).withName("tide-compute-compute-5-0").get();
    assertThat(d.getMetadata().getLabels()).containsEntry(KubernetesProvider.APP_LABEL, "tide-compute");
    var container = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getName()).isEqualTo("compute");
    assertThat(container.getArgs()).containsExactly("compute", "--meta", "meta.tide:7070", "--slots", "4", "--resource-id",
        "compute-5-0", "--config", "/etc/tide/optimizer.properties", "--listen", "$(POD_IP):" + KubernetesProvider.COMPUTE_PORT);
    assertThat(container.getEnv()).extracting(e -> e.getName()).containsExactly("TIDE_TOKEN", "POD_IP");
    assertThat(container.getEnv().get(1).getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
    // Each pool sees its own Deployments only.
    assertThat(compute.list()).extracting(LaunchSpec::resourceId, LaunchSpec::threads)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("compute-5-0", 4));
    assertThat(provider.list()).extracting(LaunchSpec::resourceId).containsExactly("default-1-0");
    compute.release("compute-5-0");
    assertThat(deployments()).extracting(x -> x.getMetadata().getName()).containsExactly("tide-optimizer-default-1-0");
  }

  @Test
  void requestAndReleaseAreIdempotent() {
    LaunchSpec a = LaunchSpec.of("default", "default-1-0", 2, Map.of("kubernetes.cpu", "500m"));
    LaunchSpec b = LaunchSpec.of("default", "default-1-1", 2, Map.of());
    provider.request(a);
    provider.request(a);
    provider.request(b);
    assertThat(deployments()).hasSize(2);
    assertThat(deployments().get(0).getSpec().getTemplate().getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("cpu", new Quantity("500m")).containsEntry("memory", new Quantity(KubernetesProvider.DEFAULT_MEMORY));

    provider.release("default-1-0");
    provider.release("default-1-0");
    provider.release("never-requested");
    assertThat(deployments()).extracting(d -> d.getMetadata().getName()).containsExactly("tide-optimizer-default-1-1");
    assertThat(provider.list()).extracting(LaunchSpec::resourceId).containsExactly("default-1-1");
  }

  @Test
  void aBadResourceQuantityIsAProviderFailure() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> provider.request(LaunchSpec.of("default", "default-1-2", 2, Map.of("kubernetes.memory", "lots"))))
        .isInstanceOf(ProviderException.class).hasMessageContaining("default-1-2")
        .hasMessageContaining("invalid value 'lots' for option 'kubernetes.memory'");
    assertThat(deployments()).isEmpty();
    // A group's provider settings are declared options: checked when the group is created or updated.
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> GroupConfig.parse(Map.of("kubernetes.cpu", "0"), KubernetesProvider.NAME, provider.groupOptions()))
        .hasMessageContaining("'0'").hasMessageContaining("kubernetes.cpu").hasMessageContaining("positive Kubernetes quantity");
    GroupConfig.parse(Map.of("kubernetes.cpu", "1500m", "kubernetes.memory", "3Gi", "kubernetes.image", "tide:2"), KubernetesProvider.NAME,
        provider.groupOptions());
  }
}

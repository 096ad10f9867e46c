package dev.tide.optimizer.keeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tide.common.config.Config;
import dev.tide.common.config.ConfigException;
import dev.tide.common.config.ConfigOption;
import dev.tide.common.time.ManualClock;
import dev.tide.optimizer.dra.InstanceView;
import dev.tide.optimizer.group.GroupDefinition;
import dev.tide.optimizer.provider.KubernetesOptions;
import dev.tide.optimizer.provider.KubernetesProvider;
import dev.tide.optimizer.provider.LaunchSpec;
import dev.tide.storage.object.S3Config;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code kubernetes} provider as meta configures it ({@link KubernetesOptions}), under the keeper shell
 * on a manual clock, against the fabric8 mock API server in CRUD mode: Deployments are created,
 * released at their boot deadline when their pods never register, and reconciled with what the
 * namespace holds.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class KubernetesKeeperTest {
  static final long T0 = 1_700_000_000_000L;
  static final long S = 1000;
  static final long MIN = 60 * S;
  static final String NS = "tide";
  static KubernetesClient client;

  final ManualClock clock = new ManualClock(T0);
  final ManualScheduler scheduler = new ManualScheduler(clock);
  final FakeLoadSource load = new FakeLoadSource();
  final InMemoryGroupStore store = new InMemoryGroupStore();
  final List<KubernetesProvider> opened = new ArrayList<>();

  @BeforeEach
  void cleanNamespace() {
    client.apps().deployments().inNamespace(NS).delete();
    client.secrets().inNamespace(NS).delete();
  }

  @AfterEach
  void closeProviders() {
    opened.forEach(KubernetesProvider::close);
  }

  /** Meta's configuration of a provider that is ready to use; then {@code kv} (a null value removes the key). */
  private Config meta(String... kv) {
    Map<String, String> raw = new HashMap<>(Map.of(
        "optimizer.kubernetes.enabled", "true",
        "optimizer.kubernetes.api-server", client.getMasterUrl().toString(),
        "optimizer.kubernetes.namespace", NS,
        "optimizer.kubernetes.image", "tide:0.1",
        "optimizer.kubernetes.meta-address", "tide-meta.tide.svc:5690",
        "optimizer.kubernetes.token-secret", "tide-token",
        "optimizer.kubernetes.config-secret", "tide-optimizer-config",
        "s3.bucket", "tide-state"));
    for (int i = 0; i < kv.length; i += 2) {
      if (kv[i + 1] == null) {
        raw.remove(kv[i]);
      } else {
        raw.put(kv[i], kv[i + 1]);
      }
    }
    List<ConfigOption<?>> options = new ArrayList<>(KubernetesOptions.ALL);
    options.addAll(S3Config.ALL);
    return Config.parse(raw, options);
  }

  private void createSecrets() {
    client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("tide-token").endMetadata()
        .addToStringData("token", "a-cluster-token-4242").build()).create();
    client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("tide-optimizer-config").endMetadata()
        .addToStringData("optimizer.properties", "s3.bucket=tide-state\n").build()).create();
  }

  private KubernetesProvider open(Config meta) {
    KubernetesProvider p = KubernetesOptions.open(meta).orElseThrow();
    opened.add(p);
    return p;
  }

  private List<String> deployments() {
    return client.apps().deployments().inNamespace(NS).list().getItems().stream().map(d -> d.getMetadata().getName()).sorted()
        .toList();
  }

  @Test
  void misconfigurationsStopMetaWithOneLineNamingTheOption() {
    assertThat(KubernetesOptions.open(meta("optimizer.kubernetes.enabled", "false"))).isEmpty();
    assertThatThrownBy(() -> KubernetesOptions.open(meta("optimizer.kubernetes.image", null)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("option 'optimizer.kubernetes.image': missing: required when optimizer.kubernetes.enabled is true"
            + " (the optimizers' container image, e.g. tide:0.1)");
    assertThatThrownBy(() -> KubernetesOptions.open(meta("optimizer.kubernetes.meta-address", null)))
        .hasMessageContaining("'optimizer.kubernetes.meta-address': missing");
    assertThatThrownBy(() -> KubernetesOptions.open(meta("optimizer.kubernetes.token-secret", null)))
        .hasMessageContaining("'optimizer.kubernetes.token-secret': missing");
    assertThatThrownBy(() -> KubernetesOptions.open(meta("s3.bucket", null)))
        .hasMessageContaining("must be false unless the object store is S3 (s3.bucket)");
    assertThatThrownBy(() -> meta("optimizer.kubernetes.meta-address", "tide-meta"))
        .hasMessageContaining("HOST:PORT, like tide-meta.tide.svc:5690");
    // Valid options, but the Secrets the pods need are not there.
    assertThatThrownBy(() -> KubernetesOptions.open(meta()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no Secret tide/tide-token (optimizer.kubernetes.token-secret)")
        .hasMessageContaining("kubectl -n tide create secret generic tide-token --from-file=token");
    client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("tide-token").endMetadata()
        .addToStringData("other", "x").build()).create();
    assertThatThrownBy(() -> KubernetesOptions.open(meta())).hasMessageContaining("Secret tide/tide-token has no key 'token'");
    assertThat(deployments()).isEmpty();
  }

  @Test
  void anUnreachableApiServerStopsMetaNamingIt() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    assertThatThrownBy(() -> KubernetesOptions.open(meta("optimizer.kubernetes.api-server", "http://127.0.0.1:" + closed)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot read Secret tide/tide-token (optimizer.kubernetes.token-secret) at http://127.0.0.1:" + closed);
  }

  @Test
  void aGroupOnKubernetesIsSizedReleasedAndReconciledThroughTheNamespace() {
    createSecrets();
    KubernetesProvider provider = open(meta());
    assertThat(provider.settings().namespace()).isEqualTo(NS);
    GroupKeepers keepers = new GroupKeepers(clock, scheduler, load, store, Map.of(provider.name(), provider));
    keepers.start();
    keepers.create(GroupDefinition.of("heavy", provider.name(), Map.of("dynamic-allocation.enabled", "true",
        "dynamic-allocation.min-parallelism", "4", "dynamic-allocation.max-parallelism", "8",
        "dynamic-allocation.executor-parallelism", "2", "kubernetes.memory", "2Gi")));
    scheduler.runDue();
    List<String> first = deployments();
    assertThat(first).hasSize(2).allMatch(n -> n.startsWith("tide-optimizer-heavy-"));
    Deployment d = client.apps().deployments().inNamespace(NS).withName(first.get(0)).get();
    assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("--meta", "tide-meta.tide.svc:5690", "--config", KubernetesProvider.CONFIG_PATH);
    assertThat(store.resources).hasSize(2);

    // One pod registers; the other is never scheduled: at its boot deadline its Deployment is deleted and replaced.
    String registered = store.resources.firstKey();
    load.register("heavy", InstanceView.launched("opt-1", 2, 0, registered));
    scheduler.runUntil(T0 + 3 * MIN);
    List<String> after = deployments();
    assertThat(after).hasSize(2).contains(KubernetesProvider.deploymentName(registered))
        .doesNotContainAnyElementsOf(first.stream().filter(n -> !n.equals(KubernetesProvider.deploymentName(registered))).toList());
    assertThat(store.resources).hasSize(2).containsKey(registered);

    // Someone deletes the booting replacement by hand and leaves a Deployment of the group the keeper never made.
    String replacement = after.stream().filter(n -> !n.equals(KubernetesProvider.deploymentName(registered))).findFirst()
        .orElseThrow();
    client.apps().deployments().inNamespace(NS).withName(replacement).delete();
    provider.request(LaunchSpec.of("heavy", "heavy-by-hand", 2, Map.of()));
    scheduler.runUntil(T0 + 5 * MIN);
    assertThat(store.resources).as("the deleted one's record is gone").doesNotContainKey(replacement.substring("tide-optimizer-".length()));
    // The orphan counts as booting, so the floor (opt-1 + orphan = 4 threads) is met without a new request.
    assertThat(deployments()).containsExactlyInAnyOrder(KubernetesProvider.deploymentName("heavy-by-hand"),
        KubernetesProvider.deploymentName(registered));
    scheduler.runUntil(T0 + 8 * MIN);
    assertThat(deployments()).as("the orphan never registered: released at its boot deadline, replaced")
        .hasSize(2).doesNotContain(KubernetesProvider.deploymentName("heavy-by-hand"))
        .contains(KubernetesProvider.deploymentName(registered));
    keepers.close();
  }
}

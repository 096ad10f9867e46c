package dev.tide.storage.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The test fake keeps the contract the real stores keep, and injects faults on demand. */
class InMemoryObjectStoreTest extends ObjectStoreContractTest {
  @Override
  protected ObjectStore newStore() {
    return new InMemoryObjectStore();
  }

  @Test
  void injectedFaultsNameTheOperationAndPath() {
    InMemoryObjectStore fake = (InMemoryObjectStore) store;
    fake.put("a/1", bytes("x"));
    fake.failWhen((op, path) -> op.equals("get") && path.equals("a/1"));
    assertThatThrownBy(() -> fake.get("a/1"))
        .isInstanceOf(ObjectStoreException.class)
        .hasMessageContaining("get of 'a/1'")
        .hasMessageContaining("injected fault");
    assertThat(fake.getRange("a/1", 0, 1)).isEqualTo(bytes("x"));
    fake.failWhen(null);
    assertThat(fake.get("a/1")).isEqualTo(bytes("x"));
    assertThat(fake.puts()).isEqualTo(1);
    assertThat(fake.rangeReads()).isEqualTo(1);
  }
}

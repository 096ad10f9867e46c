package dev.tide.optimizer.provider;

import java.util.List;

/**
 * Optimizers started by hand ({@code tide optimizer --meta … --group G}): the keeper can neither start
 * nor stop them, so dynamic allocation is refused on groups of this provider.
 */
public final class ExternalProvider implements ResourceProvider {
  public static final String NAME = "external";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean supportsDynamicAllocation() {
    return false;
  }

  @Override
  public void request(LaunchSpec spec) {
    throw new ProviderException("request of " + spec.resourceId() + " for group " + spec.group() + " refused: provider '" + NAME
        + "' has its optimizers started by hand ('tide optimizer --group " + spec.group()
        + "'); use provider in-process, local or kubernetes for dynamic allocation");
  }

  @Override
  public void release(String resourceId) {
    throw new ProviderException("release of " + resourceId + " refused: provider '" + NAME
        + "' has its optimizers stopped by hand");
  }

  @Override
  public List<LaunchSpec> list() {
    return List.of();
  }
}

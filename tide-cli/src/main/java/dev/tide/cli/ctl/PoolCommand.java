package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.cli.text.TextTable;
import dev.tide.proto.group.GroupView;
import dev.tide.proto.group.KeeperActionView;
import dev.tide.proto.group.PoolNode;
import dev.tide.proto.group.PoolRequest;
import dev.tide.proto.group.PoolView;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code tide ctl pool}: meta's compute pool. */
@Command(name = "pool", mixinStandardHelpOptions = true,
    description = "Meta's compute pool: compute nodes launched through a resource provider when the jobs want more slots.",
    subcommands = {PoolCommand.Show.class})
final class PoolCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  @Command(name = "show", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Shows the pool: wanted and available slots, nodes, the keeper's last decision and recent actions.")
  static final class Show extends AdminCommand {
    @Override
    void run(AdminClient client, PrintWriter out) {
      PoolView p = client.pool().show(PoolRequest.getDefaultInstance());
      responses.add(p);
      if (!p.getEnabled()) {
        out.println("compute pool: off (compute-pool.provider is none); nodes are started by hand (tide compute)");
        return;
      }
      GroupView g = p.getPool();
      int slots = p.getNodesList().stream().filter(n -> n.getState().equals("active")).mapToInt(PoolNode::getSlots).sum();
      out.println("compute pool on provider " + g.getProvider() + ": jobs want " + p.getWantedSlots() + " slot"
          + (p.getWantedSlots() == 1 ? "" : "s") + ", active nodes offer " + slots + " (effective with booting requests: "
          + g.getMetrics().getEffectiveThreads() + ")");
      out.println("settings:");
      new TreeMap<>(g.getPropertiesMap()).forEach((k, v) -> out.println("  " + k + " = " + v));
      List<List<String>> rows = new ArrayList<>();
      for (PoolNode n : p.getNodesList()) {
        rows.add(List.of(String.valueOf(n.getWorkerId()), n.getState(), String.valueOf(n.getSlots()), String.valueOf(n.getWantedSlots()),
            n.getResourceId().isEmpty() ? "(by hand)" : n.getResourceId()));
      }
      out.println("nodes:");
      TextTable.render("  ", List.of("worker", "state", "slots", "wanted", "resource"), rows).forEach(out::println);
      out.println("last decision: " + (g.getLastDecision().isEmpty() ? "none yet" : g.getLastDecision()));
      out.println("recent actions: " + (g.getRecentActionsCount() == 0 ? "none" : ""));
      for (KeeperActionView a : g.getRecentActionsList()) {
        out.println("  " + (g.getAtMs() - a.getAtMs()) / 1000 + "s ago  " + a.getReason());
      }
      out.println("requested, not yet released: " + g.getResourcesCount());
    }
  }
}

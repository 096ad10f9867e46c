package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.cli.text.TextTable;
import dev.tide.proto.group.CreateGroupRequest;
import dev.tide.proto.group.GroupMetricsView;
import dev.tide.proto.group.GroupRequest;
import dev.tide.proto.group.GroupServiceGrpc.GroupServiceBlockingStub;
import dev.tide.proto.group.GroupView;
import dev.tide.proto.group.KeeperActionView;
import dev.tide.proto.group.ListGroupsRequest;
import dev.tide.proto.group.ListGroupsResponse;
import dev.tide.proto.group.ResourceView;
import dev.tide.proto.group.UpdateGroupRequest;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tide ctl group create|update|delete|list|show}: optimizer groups and their scale keepers. */
@Command(name = "group", mixinStandardHelpOptions = true,
    description = "Creates, updates, deletes, lists and shows optimizer groups (pools of compaction workers).",
    subcommands = {GroupCommand.Create.class, GroupCommand.Update.class, GroupCommand.Delete.class, GroupCommand.ListGroups.class,
        GroupCommand.Show.class})
final class GroupCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  /** A group subcommand: calls the group API on the same connection as the admin API. */
  abstract static class GroupSubcommand extends AdminCommand {
    @Override
    final void run(AdminClient client, PrintWriter out) {
      run(client.groups(), out);
    }

    abstract void run(GroupServiceBlockingStub groups, PrintWriter out);
  }

  @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Creates an optimizer group; its configuration is validated first (nothing is created on a refusal).")
  static final class Create extends GroupSubcommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "The group name: lowercase letters, digits and '-'.")
    String name;

    @Option(names = "--provider", paramLabel = "PROVIDER", defaultValue = "in-process",
        description = "Resource provider: in-process, local, kubernetes or external (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = {"-P", "--property"}, paramLabel = "KEY=VALUE",
        description = "A group property, e.g. dynamic-allocation.enabled=true; repeatable.")
    Map<String, String> properties = new LinkedHashMap<>();

    @Override
    void run(GroupServiceBlockingStub groups, PrintWriter out) {
      GroupView g = groups.create(CreateGroupRequest.newBuilder().setName(name).setProvider(provider).putAllProperties(properties).build());
      out.println("optimizer group " + g.getName() + " created on provider " + g.getProvider() + "; dynamic allocation "
          + (g.getDraEnabled() ? "on" : "off"));
    }
  }

  @Command(name = "update", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Sets and removes properties of a group; the result is validated first (nothing changes on a refusal).")
  static final class Update extends GroupSubcommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "The group name.")
    String name;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A property to set; repeatable.")
    Map<String, String> set = new LinkedHashMap<>();

    @Option(names = "--unset", paramLabel = "KEY", description = "A property to remove (back to its default); repeatable.")
    List<String> unset = new ArrayList<>();

    @Override
    void validate() {
      if (set.isEmpty() && unset.isEmpty()) {
        throw new ParameterException(spec.commandLine(), "Missing option: give at least one --set KEY=VALUE or --unset KEY");
      }
    }

    @Override
    void run(GroupServiceBlockingStub groups, PrintWriter out) {
      GroupView g = groups.update(UpdateGroupRequest.newBuilder().setName(name).putAllSet(set).addAllUnset(unset).build());
      out.println("optimizer group " + g.getName() + " updated; dynamic allocation " + (g.getDraEnabled() ? "on" : "off"));
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Deletes a group: its keeper stops and the instances it launched are released.")
  static final class Delete extends GroupSubcommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "The group name.")
    String name;

    @Override
    void run(GroupServiceBlockingStub groups, PrintWriter out) {
      groups.delete(GroupRequest.newBuilder().setName(name).build());
      out.println("optimizer group " + name + " deleted");
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false, description = "Lists the optimizer groups.")
  static final class ListGroups extends GroupSubcommand {
    @Override
    void run(GroupServiceBlockingStub groups, PrintWriter out) {
      ListGroupsResponse r = groups.list(ListGroupsRequest.getDefaultInstance());
      out.println("optimizer groups: " + r.getGroupsCount() + " (providers: " + String.join(", ", r.getProvidersList()) + ")");
      List<List<String>> rows = new ArrayList<>();
      for (GroupView g : r.getGroupsList()) {
        GroupMetricsView m = g.getMetrics();
        rows.add(List.of(g.getName(), g.getProvider(), dra(g), String.valueOf(m.getInstances()), String.valueOf(m.getThreads()),
            String.valueOf(m.getEffectiveThreads()), String.valueOf(m.getDrainingInstances()), String.valueOf(m.getPendingTasks()),
            String.valueOf(m.getExecutingTasks()), String.valueOf(m.getPendingTables())));
      }
      if (!rows.isEmpty()) {
        TextTable.render("  ", List.of("group", "provider", "dra", "instances", "threads", "effective", "draining", "planned",
            "executing", "pending-tables"), rows).forEach(out::println);
      }
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Shows a group: properties, metrics, the keeper's last decision and the resources it launched.")
  static final class Show extends GroupSubcommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "The group name.")
    String name;

    @Override
    void run(GroupServiceBlockingStub groups, PrintWriter out) {
      GroupView g = groups.show(GroupRequest.newBuilder().setName(name).build());
      out.println("optimizer group " + g.getName() + " on provider " + g.getProvider() + ": dynamic allocation " + dra(g));
      if (!g.getConfigInvalid().isEmpty()) {
        out.println("  configuration invalid (treated as disabled): " + g.getConfigInvalid());
      }
      out.println("properties:");
      new TreeMap<>(g.getPropertiesMap()).forEach((k, v) -> out.println("  " + k + " = " + v));
      GroupMetricsView m = g.getMetrics();
      out.println("metrics:");
      List<List<String>> rows = List.of(
          row("instances", m.getInstances()), row("threads", m.getThreads()), row("effective-threads", m.getEffectiveThreads()),
          row("idle-instances", m.getIdleInstances()), row("draining-instances", m.getDrainingInstances()),
          row("pending-tasks", m.getPendingTasks()), row("executing-tasks", m.getExecutingTasks()),
          row("pending-tables", m.getPendingTables()), row("planning-tables", m.getPlanningTables()),
          row("executing-tables", m.getExecutingTables()), row("committing-tables", m.getCommittingTables()),
          row("idle-tables", m.getIdleTables()), row("backlog-duration-ms", m.getBacklogDurationMs()),
          row("scale-up-rounds", m.getScaleUpRounds()), row("scale-down-starts", m.getScaleDownStarts()),
          row("config-invalid", m.getConfigInvalid()));
      rows.forEach(r -> out.println("  " + r.get(0) + " " + r.get(1)));
      out.println("last decision: " + (g.getLastDecision().isEmpty() ? "none yet" : g.getLastDecision()));
      out.println("recent actions: " + (g.getRecentActionsCount() == 0 ? "none" : ""));
      for (KeeperActionView a : g.getRecentActionsList()) {
        out.println("  " + (g.getAtMs() - a.getAtMs()) / 1000 + "s ago  " + a.getReason());
      }
      out.println("next evaluation: " + (g.hasNextEvaluationMs() ? "in " + Math.max(0, g.getNextEvaluationMs() - g.getAtMs()) + "ms"
          : "on the next event"));
      out.println("resources: " + g.getResourcesCount());
      List<List<String>> res = new ArrayList<>();
      for (ResourceView r : g.getResourcesList()) {
        res.add(List.of(r.getResourceId(), String.valueOf(r.getThreads()), (g.getAtMs() - r.getRequestedAtMs()) / 1000 + "s ago"));
      }
      if (!res.isEmpty()) {
        TextTable.render("  ", List.of("resource", "threads", "requested"), res).forEach(out::println);
      }
    }

    private static List<String> row(String name, long value) {
      return List.of(name, String.valueOf(value));
    }
  }

  private static String dra(GroupView g) {
    return !g.getConfigInvalid().isEmpty() ? "invalid" : g.getDraEnabled() ? "on" : "off";
  }
}

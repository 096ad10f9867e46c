package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import dev.tide.cli.text.TextTable;
import dev.tide.proto.group.ListTablesRequest;
import dev.tide.proto.group.ListTablesResponse;
import dev.tide.proto.group.TableServiceGrpc.TableServiceBlockingStub;
import dev.tide.proto.group.TableView;
import dev.tide.proto.group.UpdateTableRequest;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.tide.proto.admin.TableName;
import dev.tide.proto.admin.TableNamesRequest;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code tide ctl table list|update}: the state-store tables' compaction status, group and quota. */
@Command(name = "table", mixinStandardHelpOptions = true,
    description = "Lists state-store tables with their compaction status, and sets which optimizer group compacts a table and its quota.",
    subcommands = {TableCommand.ListTables.class, TableCommand.Update.class})
final class TableCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return TideCli.missingSubcommand(spec);
  }

  /** A table subcommand: calls the table API on the same connection as the admin API. */
  abstract static class TableSubcommand extends AdminCommand {
    @Override
    final void run(AdminClient client, PrintWriter out) {
      run(client.tables(), out);
    }

    abstract void run(TableServiceBlockingStub tables, PrintWriter out);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Lists the tables of the committed state-store version: the job and table name, group, quota, status, L0 files and tasks.")
  static final class ListTables extends AdminCommand {
    @Option(names = "--group", paramLabel = "NAME", defaultValue = "", description = "Only the tables of this optimizer group.")
    String group;

    @Override
    void run(AdminClient client, PrintWriter out) {
      ListTablesResponse r = client.tables().list(ListTablesRequest.newBuilder().setGroup(group).build());
      out.println("tables: " + r.getTablesCount() + (group.isEmpty() ? "" : " in optimizer group " + group));
      Map<Long, TableName> names = new HashMap<>();
      if (r.getTablesCount() > 0) {
        client.views().tableNames(TableNamesRequest.getDefaultInstance()).getTablesList().forEach(n -> names.put(n.getTableId(), n));
      }
      List<List<String>> rows = new ArrayList<>();
      for (TableView t : r.getTablesList()) {
        TableName n = names.get(t.getTableId());
        // A table no job declares any more (its job was dropped) keeps its id until compaction forgets it.
        rows.add(List.of(String.valueOf(t.getTableId()), n == null ? "-" : n.getJob(), n == null ? "-" : n.getName(),
            t.getGroup(), number(t.getQuota()), t.getStatus(),
            String.valueOf(t.getL0Files()), String.valueOf(t.getL0Bytes() >> 10), String.valueOf(t.getPlannedTasks()),
            String.valueOf(t.getRunningTasks())));
      }
      if (!rows.isEmpty()) {
        TextTable.render("  ", List.of("table", "job", "name", "group", "quota", "status", "l0-files", "l0-KiB", "planned", "running"), rows)
            .forEach(out::println);
      }
    }
  }

  @Command(name = "update", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Sets and removes a table's optimizing properties: self-optimizing.group (the group that compacts it) and "
          + "self-optimizing.quota (≤ 1: a share of the group's threads; > 1: a thread limit). Validated first: nothing changes on a refusal.")
  static final class Update extends TableSubcommand {
    @Parameters(index = "0", paramLabel = "TABLE", description = "The table id (see 'tide ctl table list').")
    long tableId;

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
    void run(TableServiceBlockingStub tables, PrintWriter out) {
      TableView t = tables.update(UpdateTableRequest.newBuilder().setTableId(tableId).putAllSet(set).addAllUnset(unset).build());
      out.println("table " + t.getTableId() + " updated: compacted by optimizer group " + t.getGroup() + ", quota " + quota(t.getQuota())
          + (t.getPropertiesCount() == 0 ? " (defaults)" : " " + new TreeMap<>(t.getPropertiesMap())));
    }
  }

  private static String quota(double q) {
    return q <= 1 ? number(q * 100) + "% of the threads" : number(q) + " threads";
  }

  private static String number(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }
}

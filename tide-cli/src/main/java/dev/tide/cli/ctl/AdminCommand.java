package dev.tide.cli.ctl;

import dev.tide.cli.TideCli;
import io.grpc.StatusRuntimeException;
import dev.tide.common.auth.ClusterToken;
import com.google.protobuf.Message;
import dev.tide.cluster.ProtoJson;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A {@code tide ctl} command that makes calls to meta's admin API. A refusal prints one line,
 * {@code error: <meta's message>}, an unreachable meta {@code cannot reach meta at HOST:PORT: <reason>};
 * both exit with 1 and no stack trace. With {@code --json} the command prints meta's answers as JSON
 * instead of its text.
 */
abstract class AdminCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--meta", paramLabel = "HOST:PORT", defaultValue = MetaAddress.DEFAULT, converter = MetaAddress.Converter.class,
      description = "Address of meta's admin API (default: ${DEFAULT-VALUE}, where the playground serves it).")
  MetaAddress meta;

  @Option(names = "--token", paramLabel = "TOKEN", description = "Cluster token (default: $TIDE_TOKEN; none for the playground).")
  String token;

  @Option(names = "--json", description = "Prints meta's answer as JSON (64-bit numbers as numbers, every field present) instead of text;"
      + " several answers as a JSON array.")
  boolean json;

  /** Meta's answers to this command's calls, in order; printed as JSON with {@code --json}. */
  final List<Message> responses = new ArrayList<>();

  /** The token resolved from {@code --token} or the environment, once {@link #call} runs. */
  Optional<ClusterToken> clusterToken = Optional.empty();

  @Override
  public final Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    validate();
    try {
      clusterToken = ClusterToken.resolve(token);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--token: " + e.getMessage());
    }
    try (AdminClient client = new AdminClient(meta, clusterToken, responses::add)) {
      run(client, json ? new PrintWriter(Writer.nullWriter()) : out);
      if (json) {
        out.println(responses.size() == 1 ? ProtoJson.print(responses.get(0))
            : responses.stream().map(ProtoJson::print).collect(Collectors.joining(",\n", "[\n", "\n]")));
      }
      out.flush();
      return TideCli.EXIT_OK;
    } catch (StatusRuntimeException e) {
      out.flush();
      err.println(AdminClient.errorLine(e, meta));
      err.flush();
      return TideCli.EXIT_FAILED;
    }
  }

  /** Checks values beyond their types before anything is sent; throws a {@code ParameterException} (exit 2). */
  void validate() {}

  /** Makes the command's calls over {@code client} and prints its output. */
  abstract void run(AdminClient client, PrintWriter out);
}

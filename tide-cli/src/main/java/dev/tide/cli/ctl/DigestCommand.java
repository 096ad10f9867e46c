package dev.tide.cli.ctl;

import dev.tide.common.hash.RowFingerprint;
import dev.tide.proto.admin.DigestRequest;
import dev.tide.proto.admin.DigestResponse;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code tide ctl digest NAME}: the committed fingerprint of a digest sink's result. */
@Command(name = "digest", mixinStandardHelpOptions = true,
    description = "Prints the committed digest of a digest sink: the row count and fingerprint of the rows its result holds.")
final class DigestCommand extends AdminCommand {
  @Parameters(paramLabel = "NAME", description = "Digest sink name (a built-in query created with --digest is named like the query).")
  String name;

  @Override
  void run(AdminClient client, PrintWriter out) {
    DigestResponse r = client.views().digest(DigestRequest.newBuilder().setName(name).build());
    out.println("digest " + name + ": " + r.getRows() + " rows, fingerprint " + new RowFingerprint(r.getRows(), r.getSumA(), r.getSumB()));
  }
}

package dev.tide.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input to {@code tide optimizer} is a usage error naming the option and the fix; nothing starts. */
class OptimizerCommandTest {
  static TideCliTest.Run tide(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TideCli.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new TideCliTest.Run(code, out.toString(), err.toString());
  }

  @Test
  void theOldObjectsDirKeyAndATypoAreRefusedNamingTheFix(@TempDir Path dir) throws Exception {
    Path cfg = dir.resolve("tide.properties");
    Files.writeString(cfg, "objects.dir=" + dir + "\n");
    TideCliTest.Run r = tide("optimizer", "--meta", "127.0.0.1:5999", "--config", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("'objects.dir'").contains("renamed").contains("object-store.dir=" + dir);

    Files.writeString(cfg, "object-store.dri=" + dir + "\n");
    r = tide("optimizer", "--meta", "127.0.0.1:5999", "--config", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("'object-store.dri'").contains("unknown option").contains("did you mean 'object-store.dir'?")
        .contains("'tide options'");
  }

  @Test
  void badMetaAddressThreadsAndConfigAreUsageErrors(@TempDir Path dir) throws Exception {
    TideCliTest.Run r = tide("optimizer", "--meta", "nowhere", "--objects", dir.toString());
    assertThat(r.exitCode()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("--meta").contains("HOST:PORT");

    r = tide("optimizer", "--meta", "127.0.0.1:5999", "--threads", "0", "--objects", dir.toString());
    assertThat(r.exitCode()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("optimizer threads 0 must be between 1 and 1024");

    Path cfg = dir.resolve("optimizer.properties");
    Files.writeString(cfg, "s3.bucket=Not_A_Bucket\n");
    r = tide("optimizer", "--meta", "127.0.0.1:5999", "--config", cfg.toString());
    assertThat(r.exitCode()).isEqualTo(TideCli.EXIT_USAGE);
    assertThat(r.err()).contains("s3.bucket").contains("Not_A_Bucket");
  }
}

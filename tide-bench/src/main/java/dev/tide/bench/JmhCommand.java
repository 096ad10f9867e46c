package dev.tide.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code tide bench jmh [JMH options]}: the JMH suite of hot kernels ({@code dev.tide.bench.jmh}); options go to JMH. */
@Command(name = "jmh", mixinStandardHelpOptions = false,
    description = {"JMH micro-benchmarks of Tide's hot kernels: chunk hashing, vnode dispatch, hash-agg update,",
        "SST write and read. Arguments are JMH's, e.g. 'jmh -f 1 -wi 2 -i 3 Sst'; default: all, short settings."})
public final class JmhCommand implements Callable<Integer> {
  @Parameters(arity = "0..*", paramLabel = "JMH_ARGS")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    List<String> a = new ArrayList<>(args);
    if (a.isEmpty()) {
      a.addAll(List.of("-f", "1", "-wi", "2", "-w", "1s", "-i", "3", "-r", "1s", "dev.tide.bench.jmh"));
    }
    org.openjdk.jmh.Main.main(a.toArray(String[]::new));
    return 0;
  }
}

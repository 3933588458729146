package org.hyperprof.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.TreeSet;

import org.hyperprof.demangle.Demangler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Names demangled per second over the function names of the running JDK's libjvm.so (about 48,000,
 * listed by readelf at setup), one name per operation in turn: the full form (c++filt's) and the brief
 * one (perf report's). Compare with {@code time c++filt < names} on the same list.
 *
 * <p>Run: {@code java -jar bundles/org.hyperprof.benchmarks/target/benchmarks.jar Demangle}
 */
@State(Scope.Thread)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DemangleBenchmark extends ThroughputBenchmark {

    private final Demangler demangler = new Demangler();
    private String[] names;
    private int next;

    @Setup
    public void listNames() throws IOException, InterruptedException {
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        Process readelf = new ProcessBuilder("readelf", "-Ws", "--wide", libjvm.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String table = new String(readelf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (readelf.waitFor() != 0) {
            throw new IOException("readelf could not list " + libjvm);
        }
        TreeSet<String> functions = new TreeSet<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 8 && f[3].equals("FUNC")) {
                int at = f[7].indexOf('@');
                functions.add(at < 0 ? f[7] : f[7].substring(0, at));
            }
        }
        names = functions.toArray(String[]::new);
    }

    @Benchmark
    public String full() {
        String name = names[next];
        next = next + 1 == names.length ? 0 : next + 1;
        return demangler.full(name);
    }

    @Benchmark
    public String brief() {
        String name = names[next];
        next = next + 1 == names.length ? 0 : next + 1;
        return demangler.brief(name);
    }
}

package org.hyperprof.symbols.kallsyms;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

/**
 * A timed main, not a test: parses a kallsyms/System.map file (by default this machine's
 * /proc/kallsyms) with {@link KallsymsParser} and with the line-by-line {@link ReferenceKallsymsParser}
 * it replaced, and prints the mean time per parse of each. The file is read once; only parsing
 * (bytes to {@link SymbolTable}) is timed. Both parsers are warmed up, then timed in alternating
 * rounds so that other load on the machine affects both alike. Run from the bundle directory after
 * {@code mvn -o -q install}:
 * <pre>
 * mvn -o -q dependency:build-classpath -Dmdep.outputFile=/tmp/kallsyms-cp.txt
 * java -cp target/classes:target/test-classes:$(cat /tmp/kallsyms-cp.txt) \
 *     org.hyperprof.symbols.kallsyms.KallsymsParseTiming [file] [parses per parser] [warm-up parses]
 * </pre>
 */
public final class KallsymsParseTiming {

    private static final int ROUNDS = 10;

    private KallsymsParseTiming() {
    }

    public static void main(String[] args) throws IOException, SymbolFileException {
        Path file = Path.of(args.length > 0 ? args[0] : "/proc/kallsyms");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        String location = file.toString();
        byte[] data = Files.readAllBytes(file);
        KallsymsParser parser = new KallsymsParser();
        ReferenceKallsymsParser reference = new ReferenceKallsymsParser();

        long firstBegin = System.nanoTime();
        SymbolTable table = parser.parse("vmlinux", location, data);
        double firstMs = (System.nanoTime() - firstBegin) / 1e6;
        long sink = 0;
        for (int i = 0; i < warmUp; i++) {
            sink += parser.parse("vmlinux", location, data).size();
            sink += reference.parse("vmlinux", location, data).size();
        }
        int perRound = Math.max(1, runs / ROUNDS);
        int timed = perRound * ROUNDS;
        double[] fast = new double[timed];
        double[] old = new double[timed];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < perRound; i++) {
                long begin = System.nanoTime();
                sink += reference.parse("vmlinux", location, data).size();
                old[round * perRound + i] = (System.nanoTime() - begin) / 1e6;
            }
            for (int i = 0; i < perRound; i++) {
                long begin = System.nanoTime();
                sink += parser.parse("vmlinux", location, data).size();
                fast[round * perRound + i] = (System.nanoTime() - begin) / 1e6;
            }
        }
        System.out.printf("%s: %d bytes, %d functions; first parse in this JVM %.1f ms%n",
                file, data.length, table.size(), firstMs);
        System.out.printf("%d parses each after %d warm-up parses each:%n", timed, warmUp);
        System.out.println("  reference (before): " + summary(old));
        System.out.println("  KallsymsParser:     " + summary(fast));
        System.out.printf("  speed-up of the mean: %.2fx%n", mean(old) / mean(fast));
        if (sink == 42) {
            System.out.println();
        }
    }

    private static double mean(double[] ms) {
        return Arrays.stream(ms).average().orElse(0);
    }

    private static String summary(double[] ms) {
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        return String.format("mean %.3f ms, median %.3f ms, min %.3f ms, max %.3f ms",
                mean(ms), sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
    }
}

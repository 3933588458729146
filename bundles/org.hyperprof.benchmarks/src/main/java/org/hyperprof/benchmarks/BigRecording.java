package org.hyperprof.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.source.perf.ImportOptions;
import org.hyperprof.source.perf.PerfDataException;
import org.hyperprof.source.perf.PerfDataReader;
import org.hyperprof.source.perf.PerfImport;
import org.hyperprof.source.perf.SortKeys;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;

/**
 * The recording the perf benchmarks read: a real perf.data of at least {@link #MIN_SAMPLES}
 * samples with callchains, made once with {@code perf record -F 20000 -g -e cpu-clock} of a
 * workload that keeps two CPUs busy for about {@link #SECONDS} seconds (shell loops, gzip, md5sum
 * over /usr/lib, find), like the recording of peers.md part 3. Kept in the temporary directory
 * and reused; {@code -Dhyperprof.perf.data=<file>} names another.
 */
final class BigRecording {

    static final long MIN_SAMPLES = 500_000;
    static final int SECONDS = 16;

    private BigRecording() {
    }

    /** The recording: the one named by the system property, else the cached one, else a new one. */
    static Path get() throws IOException, InterruptedException {
        String named = System.getProperty("hyperprof.perf.data");
        if (named != null) {
            return Path.of(named);
        }
        Path dir = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "hyperprof-bench"));
        Path file = dir.resolve("big.data");
        if (Files.isRegularFile(file) && samples(file) >= MIN_SAMPLES) {
            return file;
        }
        String loop = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done";
        String work = "end=$(( $(date +%s) + " + SECONDS + " )); "
                + "(while [ $(date +%s) -lt $end ]; do " + loop + "; done) & "
                + "(while [ $(date +%s) -lt $end ]; do head -c 30000000 /dev/urandom | gzip -6 > /dev/null; done) & "
                + "(while [ $(date +%s) -lt $end ]; do find /usr/lib -type f -size -2M -print0 2>/dev/null"
                + " | head -z -n 1500 | xargs -0 -n 200 md5sum > /dev/null; done) & wait";
        Process p = new ProcessBuilder(List.of("perf", "record", "-q", "-F", "20000", "-g", "-e", "cpu-clock", "-o",
                file.toString(), "--", "/bin/sh", "-c", work)).inheritIO().start();
        if (!p.waitFor(SECONDS * 4L, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("perf record of the benchmark workload failed; is Debian's linux-perf installed"
                    + " and may this user record (kernel.perf_event_paranoid)?");
        }
        long n = samples(file);
        if (n < MIN_SAMPLES) {
            throw new IOException(file + " holds " + n + " samples, fewer than the " + MIN_SAMPLES + " the benchmark"
                    + " needs (a machine with fewer than two CPUs?); give one with -Dhyperprof.perf.data=<file>");
        }
        return file;
    }

    /** Symbol resolvers as the framework binds them: ELF and kallsyms. */
    static SymbolTables resolvers() {
        SymbolTables r = new SymbolTables();
        r.addResolver(ElfResolver.FORMAT_NAME, new ElfResolver());
        r.addResolver(KallsymsResolver.FORMAT_NAME, new KallsymsResolver());
        return r;
    }

    /** Imports the recording flat, its report by {@code keys} ({@code comm,dso,sym}: by process). */
    static PerfImport.Result importSorted(Path file, SymbolTables resolvers, SortKeys keys) throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            PerfImport imp = new PerfImport(resolvers, ImportOptions.defaults().withCallchains(false), false);
            imp.sortBy(keys);
            return imp.run(r, null, "perf.data", null, false);
        }
    }

    /** Imports the recording without consumers: the flat report, or with {@code callGraph} both. */
    static PerfImport.Result importOnce(Path file, SymbolTables resolvers, boolean callGraph)
            throws PerfDataException {
        try (PerfDataReader r = PerfDataReader.open(file)) {
            return new PerfImport(resolvers, ImportOptions.defaults().withCallchains(callGraph), callGraph).run(r, null,
                    "perf.data", null, false);
        }
    }

    private static long samples(Path file) {
        try {
            return importOnce(file, resolvers(), false).accounting().taken();
        } catch (PerfDataException e) {
            return 0;
        }
    }
}

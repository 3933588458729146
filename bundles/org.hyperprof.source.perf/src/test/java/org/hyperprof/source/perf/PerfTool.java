package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

/** Runs Linux perf (Debian's linux-perf) and reads what perf report prints, for agreement tests. */
final class PerfTool {

    private PerfTool() {
    }

    private static Boolean available;

    /**
     * Whether perf is installed and may record here: a trivial {@code perf record -e cpu-clock} must
     * work (kernel.perf_event_paranoid and the user's rights allow it). Asked once per test run.
     */
    static synchronized boolean available() {
        if (available == null) {
            available = canRecord();
        }
        return available;
    }

    private static boolean canRecord() {
        try {
            Path out = Files.createTempFile("perf-probe", ".data");
            try {
                Process p = new ProcessBuilder("perf", "record", "-q", "-e", "cpu-clock", "-g", "-o", out.toString(),
                        "--", "true").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 && Files.size(out) > 0;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Why a test that records is skipped. */
    static final String CANNOT_RECORD = "perf is not installed (Debian package linux-perf) or may not record here"
            + " (kernel.perf_event_paranoid)";

    /** Skips the calling test unless perf may record here. */
    static void assumeRecording() {
        Assumptions.assumeTrue(available(), CANNOT_RECORD);
    }

    /**
     * Skips the calling test unless perf may record here and gcc is installed; then builds the test
     * program {@code resource} as {@code dir/name} ({@link #compile}).
     */
    static Path programToRecord(Path dir, String resource, String name, String... flags) throws IOException,
            InterruptedException {
        assumeRecording();
        Assumptions.assumeTrue(gccAvailable(), "gcc is not installed");
        return compile(dir, resource, name, flags);
    }

    /** Whether a C compiler is there for the test programs. */
    static boolean gccAvailable() {
        return runs("gcc", "--version");
    }

    /** Whether the command runs and exits with 0 (a tool is installed). */
    static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs a command to its end and returns its standard output; fails the test on a non-zero exit. */
    static String run(List<String> command, Path stdout) throws IOException, InterruptedException {
        return run(command, stdout, null);
    }

    /** {@link #run(List, Path)} in working directory {@code dir} (null: this one). */
    static String run(List<String> command, Path stdout, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Path err = Files.createTempFile("perf-err", ".txt");
        pb.redirectError(err.toFile());
        if (stdout != null) {
            pb.redirectOutput(stdout.toFile());
        }
        Process p = pb.start();
        String out = stdout != null ? "" : new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not finish in 300 s");
        }
        String errText = Files.readString(err);
        Files.deleteIfExists(err);
        if (p.exitValue() != 0) {
            throw new IOException(command + " exited with " + p.exitValue() + ": " + errText);
        }
        return out;
    }

    /** Compiles a C (or, for a {@code .cpp} resource, C++) test program from the test resources into {@code dir}. */
    static Path compile(Path dir, String resource, String name, String... flags) throws IOException,
            InterruptedException {
        boolean cxx = resource.endsWith(".cpp");
        Path src = dir.resolve(name + (cxx ? ".cpp" : ".c"));
        // This bundle's own programs, else the shared ones (busy.c) of the testing bundle.
        var own = PerfTool.class.getResourceAsStream(resource);
        try (var in = own != null ? own : org.hyperprof.testing.tools.TestPrograms.source(resource)) {
            if (in == null) {
                throw new IOException("no test program " + resource);
            }
            Files.write(src, in.readAllBytes());
        }
        Path exe = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of(cxx ? "g++" : "gcc", "-O1", "-fno-omit-frame-pointer",
                "-fno-inline"));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-o", exe.toString(), src.toString()));
        run(cmd, null);
        return exe;
    }

    /** Whether perf is installed (reading a recording needs no right to record). */
    static boolean perfInstalled() {
        return runs("perf", "--version");
    }

    /** Whether binutils' objdump and readelf are installed. */
    static boolean objdumpAvailable() {
        return runs("objdump", "--version") && runs("readelf", "--version");
    }

    private static final Pattern OBJDUMP_SECTION = Pattern.compile("^Disassembly of section (\\S+):$");
    private static final Pattern OBJDUMP_INSTRUCTION = Pattern.compile("^\\s+([0-9a-f]+):\\t.*");

    /**
     * The address of every instruction of the named sections of {@code exe}, as objdump
     * disassembles them, by section in file order; a section the file lacks is left out.
     */
    static Map<String, List<Long>> instructions(Path exe, String... sections) throws IOException,
            InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("objdump", "-d", "-w"));
        for (String s : sections) {
            cmd.add("--section=" + s);
        }
        cmd.add(exe.toString());
        Map<String, List<Long>> out = new LinkedHashMap<>();
        List<Long> current = null;
        for (String line : run(cmd, null).split("\n")) {
            Matcher m = OBJDUMP_SECTION.matcher(line);
            if (m.matches()) {
                current = out.computeIfAbsent(m.group(1), k -> new ArrayList<>());
                continue;
            }
            Matcher i = OBJDUMP_INSTRUCTION.matcher(line);
            if (current != null && i.matches()) {
                current.add(Long.parseUnsignedLong(i.group(1), 16));
            }
        }
        return out;
    }

    private static final Pattern LOAD = Pattern.compile(
            "^\\s+LOAD\\s+0x([0-9a-f]+)\\s+0x([0-9a-f]+)\\s+0x[0-9a-f]+\\s+0x[0-9a-f]+\\s+0x([0-9a-f]+)\\s+(.*?)\\s+0x[0-9a-f]+$");

    /** Whether {@code exe} is position-independent (ELF type DYN), as readelf -h says. */
    static boolean positionIndependent(Path exe) throws IOException, InterruptedException {
        return run(List.of("readelf", "-hW", exe.toString()), null).matches("(?s).*Type:\\s+DYN.*");
    }

    /** The executable LOAD segment of {@code exe} as {vaddr, file offset, memory size} (readelf -lW). */
    static long[] executableSegment(Path exe) throws IOException, InterruptedException {
        for (String line : run(List.of("readelf", "-lW", exe.toString()), null).split("\n")) {
            Matcher m = LOAD.matcher(line);
            if (m.matches() && m.group(4).contains("E")) {
                return new long[] {Long.parseLong(m.group(2), 16), Long.parseLong(m.group(1), 16),
                        Long.parseLong(m.group(3), 16)};
            }
        }
        throw new IOException(exe + " has no executable LOAD segment");
    }

    /** Whether binutils' objcopy is installed. */
    static boolean objcopyAvailable() {
        return runs("objcopy", "--version");
    }

    /**
     * Moves a program's symbols and debug information into {@code debugFile} and strips the
     * program, leaving a {@code .gnu_debuglink} to the debug file's name (as Debian packages do).
     */
    static void splitDebug(Path exe, Path debugFile) throws IOException, InterruptedException {
        run(List.of("objcopy", "--only-keep-debug", exe.toString(), debugFile.toString()), null);
        run(List.of("objcopy", "--strip-all", exe.toString()), null);
        run(List.of("objcopy", "--add-gnu-debuglink=" + debugFile, exe.toString()), null);
    }

    /** {@code perf record <options> -o <file> -- <command>}. */
    static Path record(Path file, List<String> options, List<String> command) throws IOException,
            InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("perf", "record", "-q"));
        cmd.addAll(options);
        cmd.addAll(List.of("-o", file.toString(), "--"));
        cmd.addAll(command);
        run(cmd, null);
        return file;
    }

    /** {@code perf record <options> -o - -- <command> > file}: a pipe-mode recording. */
    static Path recordPipe(Path file, List<String> options, List<String> command) throws IOException,
            InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("perf", "record", "-q"));
        cmd.addAll(options);
        cmd.addAll(List.of("-o", "-", "--"));
        cmd.addAll(command);
        run(cmd, file);
        return file;
    }

    /** {@code perf report -i <file> --stdio <args>}. */
    static String report(Path file, String... args) throws IOException, InterruptedException {
        return reportIn(null, file, args);
    }

    /** {@link #report} run in working directory {@code dir}. */
    static String reportIn(Path dir, Path file, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("perf", "report", "-i", file.toString(), "--stdio"));
        cmd.addAll(List.of(args));
        return run(cmd, null, dir);
    }

    /**
     * Runs {@code main} of a test class in a JVM of its own (this JVM's java and class path) in
     * working directory {@code dir}: what depends on the working directory cannot be changed in
     * this one.
     */
    static String javaIn(Path dir, Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        return run(cmd, null, dir);
    }

    /** How one run of perf report ended: what it printed, its exit status, or that it did not end in time. */
    record Outcome(String stdout, String stderr, int exit, boolean timedOut) {
        /** perf was killed by a signal (a crash: SIGSEGV, SIGABRT, ...) rather than exiting. */
        boolean crashed() {
            return !timedOut && exit >= 128;
        }

        /** The flat rows perf printed (empty when it printed no report). */
        Map<Key, Long> rows() {
            return flat(stdout);
        }

        /** perf's error output on one line, for messages. */
        String said() {
            return stderr.strip().replaceAll("\\s*\\n\\s*", " | ");
        }
    }

    /**
     * {@code perf report --no-children --sort dso,sym -n -g none} of {@code file} with the kernel
     * symbols of {@code kallsyms}, without failing on anything perf does: its output, error output
     * and exit status, or that it ran longer than {@code timeoutSeconds} (then it is killed).
     */
    static Outcome flatReport(Path file, Path kallsyms, long timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("perf", "report", "-i", file.toString(), "--kallsyms",
                kallsyms.toString(), "--stdio", "--no-children", "--sort", "dso,sym", "-n", "-g", "none");
        Path out = Files.createTempFile(file.getParent(), "perf-out", ".txt");
        Path err = Files.createTempFile(file.getParent(), "perf-err", ".txt");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
            Process p = pb.start();
            p.getOutputStream().close();
            boolean ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            // Decoded as the import decodes names (UTF-8), so that bytes of a corrupt name compare alike.
            return new Outcome(new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
                    new String(Files.readAllBytes(err), StandardCharsets.UTF_8), ended ? p.exitValue() : -1, !ended);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * A sample of this machine's kernel symbols as a kallsyms file that perf report
     * ({@code --kallsyms}) and the import both read: the markers of the kernel text and every
     * {@code step}-th line. Loading the whole of /proc/kallsyms takes perf report a tenth of a
     * second, which a test running it hundreds of times cannot afford; the names differ from the
     * full table's, but both sides name the kernel's samples from the same file.
     */
    static Path kallsymsSample(Path file, int step) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/kallsyms"), StandardCharsets.ISO_8859_1);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (i % step == 0 || l.endsWith(" _text") || l.endsWith(" _stext") || l.endsWith(" _etext")) {
                b.append(l).append('\n');
            }
        }
        return Files.writeString(file, b, StandardCharsets.ISO_8859_1);
    }

    /** The flat rows of an import keyed as perf report prints them (a key held by several symbols summed). */
    static Map<Key, Long> rows(PerfImport.Result result) {
        Map<Key, Long> rows = new java.util.TreeMap<>(java.util.Comparator.comparing(Key::toString));
        for (PerfReport.Row r : result.report().rows()) {
            if (r.samples() > 0) {
                rows.merge(new Key(PerfReport.shortName(r.image()), r.selfLevel(), r.symbol()), r.samples(), Long::sum);
            }
        }
        return rows;
    }

    /** One row of perf report: shared object (short name), level letter, symbol. */
    record Key(String dso, char level, String symbol) {
        @Override
        public String toString() {
            return dso + " [" + level + "] " + symbol;
        }
    }

    // A shared object's name may hold blanks ("[JIT] tid 4242"): it runs up to the level column.
    private static final Pattern FLAT =
            Pattern.compile("^\\s+([0-9.]+)%\\s+(\\d+)\\s+(\\S.*?)\\s+\\[(.)\\] (.*?)\\s*$");
    private static final Pattern CHILDREN =
            Pattern.compile("^\\s+([0-9.]+)%\\s+([0-9.]+)%\\s+(\\d+)\\s+(\\S.*?)\\s+\\[(.)\\] (.*?)\\s*$");

    /** The rows of {@code perf report --no-children --sort dso,sym -n}: key to samples. */
    static Map<Key, Long> flat(String text) {
        Map<Key, Long> rows = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = FLAT.matcher(line);
            if (m.matches()) {
                rows.merge(new Key(m.group(3), m.group(4).charAt(0), m.group(5)), Long.parseLong(m.group(2)),
                        Long::sum);
            }
        }
        return rows;
    }

    /**
     * A row's Children percentage as perf report prints it. perf prints a (shared object, symbol)
     * key in several rows when several symbols have that name (such as PLT stubs named only
     * {@code @plt}), and also when its address order misplaces one: that order
     * ({@code _sort__addr_cmp} in tools/perf/util/sort.c) is the wrapped difference
     * {@code (int64_t)(right - left)}, no order for addresses more than 2^63 apart, such as the
     * garbage frames of a frame-pointer walk through code built without them. Such rows are summed,
     * each rounded to 0.01 %.
     *
     * @param text    the printed percentage, when one row
     * @param percent the rows' sum
     * @param rows    how many rows have this key
     */
    record Children(String text, double percent, int rows) {
        /** Whether {@code ours} agrees: the same text when both are one row, else the sums within the rows' rounding. */
        boolean agrees(Children ours) {
            if (rows == 1 && ours.rows == 1) {
                return text.equals(ours.text);
            }
            return Math.abs(ours.percent - percent) <= 0.005 * (rows + 1) + 1e-9;
        }

        /** This row and another of the same frame, as one. */
        Children plus(Children other) {
            return new Children(null, percent + other.percent, rows + other.rows);
        }

        @Override
        public String toString() {
            return rows == 1 ? text : String.format("%.2f%% in %d rows", percent, rows);
        }
    }

    /** Two maps of rows, perf's and ours, keyed alike. */
    record Rows<V>(Map<Key, V> perf, Map<Key, V> ours) {
    }

    /**
     * perf's rows and ours with each frame perf splits across level letters folded into one row.
     * When perf's address order misplaces an unresolved address (see {@link Children}), its lookup
     * misses the frame's entry and adds a second one, which takes the level letter of the sample
     * that adds it, not the frame's first: the same frame then shows in rows with different letters.
     * Such rows are one frame: perf's are summed, under the key {@code *}, and so is ours when it
     * has one of perf's letters (any other letter stays apart, a difference).
     */
    static <V> Rows<V> foldSplitLetters(Map<Key, V> perf, Map<Key, V> ours, java.util.function.BinaryOperator<V> sum) {
        Map<String, java.util.Set<Character>> letters = new java.util.HashMap<>();
        perf.keySet().forEach(k -> letters.computeIfAbsent(k.dso() + '\0' + k.symbol(), x -> new java.util.TreeSet<>())
                .add(k.level()));
        java.util.function.BiFunction<Key, Boolean, Key> fold = (k, mine) -> {
            java.util.Set<Character> seen = letters.get(k.dso() + '\0' + k.symbol());
            boolean split = seen != null && seen.size() > 1 && (!mine || seen.contains(k.level()));
            return split ? new Key(k.dso(), '*', k.symbol()) : k;
        };
        Map<Key, V> p = new java.util.TreeMap<>(java.util.Comparator.comparing(Key::toString));
        perf.forEach((k, v) -> p.merge(fold.apply(k, false), v, sum));
        Map<Key, V> o = new java.util.TreeMap<>(java.util.Comparator.comparing(Key::toString));
        ours.forEach((k, v) -> o.merge(fold.apply(k, true), v, sum));
        return new Rows<>(p, o);
    }

    /** The rows of {@code perf report --children --sort dso,sym -n}: key to the Children percentage. */
    static Map<Key, Children> children(String text) {
        Map<Key, Children> rows = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = CHILDREN.matcher(line);
            if (m.matches()) {
                double percent = Double.parseDouble(m.group(1));
                rows.merge(new Key(m.group(4), m.group(5).charAt(0), m.group(6)),
                        new Children(m.group(1) + "%", percent, 1),
                        Children::plus);
            }
        }
        return rows;
    }

    private static final Pattern SCRIPT_FRAME = Pattern.compile("^\\s+[0-9a-f]+ (.*) \\((.*)\\)$");

    /**
     * Each sample of {@code perf script -F tid,ip,sym,dso} (time order) as its frames, innermost
     * first, each "symbol (dso)" with [unknown] for no symbol or no mapping.
     */
    static List<List<String>> stacks(String text) {
        List<List<String>> out = new ArrayList<>();
        List<String> current = null;
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.strip().matches("\\d+")) {
                // The sample's header: its thread id (right-aligned, so it may start with blanks).
                current = new ArrayList<>();
                out.add(current);
                continue;
            }
            Matcher m = SCRIPT_FRAME.matcher(line);
            if (m.matches() && current != null) {
                current.add(m.group(1) + " (" + m.group(2) + ")");
            }
        }
        return out;
    }

    /** The total sample count perf report prints ("# Samples: N  of event ..."). */
    static long totalSamples(String text) {
        Matcher m = Pattern.compile("# Samples: (\\d+)").matcher(text);
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(1));
        }
        return n;
    }
}

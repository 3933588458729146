package org.hyperprof.report.annotate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportException;

/**
 * binutils as perf annotate uses them, as subprocesses: {@code nm} finds a function's bounds in the
 * file's symbol tables, {@code objdump} disassembles exactly those bytes
 * ({@code --start-address/--stop-address}), with {@code -S -l} the source lines DWARF gives.
 */
final class Binutils {

    /** A function of the file: link-time addresses {@code [start, end)}. */
    record Function(String name, long start, long end) {
    }

    /** One line objdump printed: an instruction (its address, then its text) or, with source, any other line. */
    record Line(long address, String text) {
        static final long NONE = -1;

        boolean isInstruction() {
            return address != NONE;
        }
    }

    /** How long a tool may take (libjvm.so's 90,000 symbols take nm about a second). */
    private static final long TIMEOUT_SECONDS = 120;
    private static final Pattern NM_LINE = Pattern.compile("^([0-9a-f]+) ([0-9a-f]+) [tTwWiu] (.+)$");
    private static final Pattern INSTRUCTION = Pattern.compile("^\\s*([0-9a-f]+):\\t(.*)$");
    private static final Pattern LABEL = Pattern.compile("^[0-9a-f]+ <.*>:$");

    private final String nm;
    private final String objdump;

    /** The tools found in the PATH. */
    Binutils() {
        this("nm", "objdump");
    }

    Binutils(String nm, String objdump) {
        this.nm = nm;
        this.objdump = objdump;
    }

    /**
     * The function named {@code name} (as the symbol table spells it) in {@code file}: from its
     * symbol table, else from its dynamic symbol table.
     *
     * @throws ReportException when neither table has it with a size, or nm fails
     */
    Function function(Path file, String name) throws ReportException {
        for (boolean dynamic : new boolean[] {false, true}) {
            List<String> cmd = new ArrayList<>(List.of(nm, "-S", "--defined-only"));
            if (dynamic) {
                cmd.add("-D");
            }
            cmd.add(file.toString());
            for (String line : run(cmd, "nm", true).split("\n")) {
                Matcher m = NM_LINE.matcher(line);
                // The dynamic table's names carry their version (memset@@GLIBC_2.2.5).
                if (m.matches() && unversioned(m.group(3)).equals(name)) {
                    long start = Long.parseUnsignedLong(m.group(1), 16);
                    long size = Long.parseUnsignedLong(m.group(2), 16);
                    if (size > 0) {
                        return new Function(name, start, start + size);
                    }
                }
            }
        }
        throw new ReportException(file + " has no function " + name + " with a size in its symbol tables (nm -S,"
                + " nm -D -S); a stripped file has no bounds for it: annotate the unstripped file or its debug file");
    }

    private static String unversioned(String name) {
        int at = name.indexOf('@');
        return at > 0 ? name.substring(0, at) : name;
    }

    /**
     * The instructions of {@code [start, end)} of {@code file}, as objdump disassembles them; with
     * {@code source}, the source lines (and file:line lines) before them too.
     */
    List<Line> disassemble(Path file, long start, long end, boolean source) throws ReportException {
        List<String> cmd = new ArrayList<>(List.of(objdump, "--start-address=0x" + Long.toHexString(start),
                "--stop-address=0x" + Long.toHexString(end), "-d", "-w", "--no-show-raw-insn", "-C", "-z"));
        if (source) {
            cmd.addAll(List.of("-S", "-l"));
        }
        cmd.add(file.toString());
        List<Line> lines = new ArrayList<>();
        boolean inFunction = false;
        for (String line : run(cmd, "objdump", false).split("\n")) {
            Matcher m = INSTRUCTION.matcher(line);
            if (m.matches()) {
                lines.add(new Line(Long.parseUnsignedLong(m.group(1), 16), m.group(2).stripTrailing()));
                inFunction = true;
            } else if (LABEL.matcher(line).matches()) {
                inFunction = true;
            } else if (inFunction && source && !line.isBlank()) {
                lines.add(new Line(Line.NONE, line.stripTrailing()));
            }
        }
        if (lines.stream().noneMatch(Line::isInstruction)) {
            throw new ReportException("objdump found no instructions of " + file + " between 0x"
                    + Long.toHexString(start) + " and 0x" + Long.toHexString(end) + "; is it the file the session"
                    + " recorded (same build)?");
        }
        return lines;
    }

    /** Runs a tool to its end and returns its output; a tool that is missing or fails is a typed error. */
    private static String run(List<String> command, String tool, boolean emptyOk) throws ReportException {
        Path err = null;
        try {
            err = Files.createTempFile("hyperprof-" + tool, ".err");
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new ReportException(tool + " did not finish in " + TIMEOUT_SECONDS + " s: " + command);
            }
            String errText = Files.readString(err).strip();
            if (p.exitValue() != 0 && !(emptyOk && errText.contains("no symbols"))) {
                throw new ReportException(tool + " failed (exit " + p.exitValue() + ") on " + command.get(
                        command.size() - 1) + ": " + (errText.isEmpty() ? "no message" : errText.lines().findFirst()
                                .orElse("")));
            }
            return out;
        } catch (IOException e) {
            throw new ReportException("cannot run binutils' " + tool + " (" + e.getMessage() + "); annotation needs"
                    + " it in the PATH: install binutils (Debian package binutils)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReportException(tool + " was interrupted");
        } finally {
            if (err != null) {
                try {
                    Files.deleteIfExists(err);
                } catch (IOException ignored) {
                    // a temporary file left behind is no failure of the annotation
                }
            }
        }
    }
}

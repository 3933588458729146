package org.hyperprof.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/** The real tools the tests compare with: binutils' readelf, nm and c++filt. */
final class Tools {
    private Tools() {
    }

    /** Runs a command, feeding it the lines, and returns what it prints, line by line. */
    static List<String> run(List<String> command, List<String> input) {
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (Writer w = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
                for (String line : input) {
                    w.write(line);
                    w.write('\n');
                }
            }
            String text = output.join();
            assertEquals(0, process.waitFor(), "exit status of " + command);
            List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
            if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
                lines.remove(lines.size() - 1);
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Names of the FUNC symbols of an ELF file (both symbol tables), sorted, without versions. */
    static List<String> functionNames(Path elf) {
        TreeSet<String> names = new TreeSet<>();
        for (String line : run(List.of("readelf", "-Ws", "--wide", elf.toString()), List.of())) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 8 && f[3].equals("FUNC")) {
                int at = f[7].indexOf('@');
                names.add(at < 0 ? f[7] : f[7].substring(0, at));
            }
        }
        return new ArrayList<>(names);
    }

    /** Text symbols of an executable as {@code nm} lists them. */
    static List<String> textSymbols(Path executable) {
        TreeSet<String> names = new TreeSet<>();
        for (String line : run(List.of("nm", executable.toString()), List.of())) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && (f[1].equals("t") || f[1].equals("T"))) {
                names.add(f[2]);
            }
        }
        return new ArrayList<>(names);
    }
}

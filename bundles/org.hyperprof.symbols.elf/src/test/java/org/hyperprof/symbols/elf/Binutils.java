package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.input.SymbolFiles;

/**
 * Runs the real GNU tools ({@code readelf}, {@code nm}, {@code gcc}) and parses what they print, so
 * that tests compare the resolver with them. A test whose tool is missing is skipped.
 */
final class Binutils {

    private Binutils() {
    }

    /** A file as users give it: read through its channel, where the resolver looks. */
    static ImageSource image(Path file) {
        return SymbolFiles.source(file.getFileName().toString(), "elf", file);
    }

    /** The same file as a stream only, which the resolver reads whole. */
    static ImageSource stream(Path file) {
        return new ImageSource(file.getFileName().toString(), "elf", file.toString(), () -> Files.newInputStream(file));
    }

    static ImageSource bytes(String location, byte[] data) {
        return new ImageSource("image", "elf", location, () -> new ByteArrayInputStream(data));
    }

    /** The tool's standard output, or empty when the tool is missing or fails. */
    static Optional<List<String>> tryRun(Path dir, String... command) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        try {
            Process p = pb.start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return Optional.of(Arrays.asList(new String(out, StandardCharsets.UTF_8).split("\n")));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The tool's standard output; skips the test when the tool is missing or fails. */
    static List<String> run(String... command) {
        Optional<List<String>> out = tryRun(null, command);
        assumeTrue(out.isPresent(), () -> String.join(" ", command) + " is not available here");
        return out.get();
    }

    static void assumeFile(Path file) {
        assumeTrue(Files.isReadable(file), () -> file + " is not on this machine");
    }

    /** A name without the symbol version readelf and nm append ({@code memcpy@@GLIBC_2.14 (3)}). */
    static String baseName(String name) {
        int at = name.indexOf('@');
        return at < 0 ? name : name.substring(0, at);
    }

    /** One line of {@code readelf -Ws}. */
    record ReadelfSymbol(int num, long value, long size, String type, String bind, String ndx, String name) {
        boolean isDefinedFunction() {
            return (type.equals("FUNC") || type.equals("IFUNC")) && ndx.chars().allMatch(Character::isDigit)
                    && !name.isEmpty();
        }

        int bindRank() {
            switch (bind) {
                case "GLOBAL": case "UNIQUE":
                    return 0;
                case "WEAK":
                    return 1;
                case "LOCAL":
                    return 2;
                default:
                    return 3;
            }
        }
    }

    /** Whether {@code readelf -S} lists a {@code .symtab}. */
    static boolean hasSymtab(Path file) {
        return run("readelf", "-SW", file.toString()).stream().anyMatch(l -> l.contains(" .symtab "));
    }

    /** The symbols of one table ({@code .symtab} or {@code .dynsym}) as {@code readelf -Ws} prints them. */
    static List<ReadelfSymbol> readelfSymbols(Path file, String table) {
        List<String> lines = run("readelf", "-Ws", file.toString());
        List<ReadelfSymbol> symbols = new ArrayList<>();
        boolean inTable = false;
        for (String line : lines) {
            if (line.startsWith("Symbol table '")) {
                inTable = line.startsWith("Symbol table '" + table + "'");
                continue;
            }
            String t = line.trim();
            if (!inTable || t.isEmpty() || t.startsWith("Num:")) {
                continue;
            }
            String[] f = t.split("\\s+", 8);
            String sizeText = f[2];
            long size = sizeText.startsWith("0x") ? Long.parseUnsignedLong(sizeText.substring(2), 16)
                    : Long.parseLong(sizeText);
            String name = f.length > 7 ? baseName(f[7]) : "";
            int space = name.indexOf(' ');
            if (space >= 0) {
                name = name.substring(0, space);
            }
            symbols.add(new ReadelfSymbol(Integer.parseInt(f[0].substring(0, f[0].length() - 1)),
                    Long.parseUnsignedLong(f[1], 16), size, f[3], f[4], f[6], name));
        }
        return symbols;
    }

    /** One line of {@code nm}. */
    record NmSymbol(long address, char type, String name) {
    }

    static List<NmSymbol> nm(Path file, boolean dynamic) {
        List<String> lines = dynamic ? run("nm", "-D", "--defined-only", file.toString())
                : run("nm", "--defined-only", file.toString());
        List<NmSymbol> symbols = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[1].length() == 1) {
                symbols.add(new NmSymbol(Long.parseUnsignedLong(f[0], 16), f[1].charAt(0), baseName(f[2])));
            }
        }
        return symbols;
    }

    /** The build-id {@code readelf -n} prints, or null. */
    static String readelfBuildId(Path file) {
        for (String line : run("readelf", "-n", file.toString())) {
            String t = line.trim();
            if (t.startsWith("Build ID:")) {
                return t.substring("Build ID:".length()).trim();
            }
        }
        return null;
    }

    /** One line of {@code readelf -SW}. */
    record ReadelfSection(int index, String name, String type, long address, long offset, long size, String flags,
            long align) {
        boolean allocated() {
            return flags.contains("A");
        }
    }

    static List<ReadelfSection> readelfSections(Path file) {
        List<ReadelfSection> sections = new ArrayList<>();
        for (String line : run("readelf", "-SW", file.toString())) {
            String t = line.trim();
            if (!t.startsWith("[") || t.startsWith("[Nr]")) {
                continue;
            }
            int close = t.indexOf(']');
            int index = Integer.parseInt(t.substring(1, close).trim());
            if (index == 0) {
                continue;
            }
            String[] f = t.substring(close + 1).trim().split("\\s+");
            boolean hasFlags = f.length == 10;
            sections.add(new ReadelfSection(index, f[0], f[1], Long.parseUnsignedLong(f[2], 16),
                    Long.parseUnsignedLong(f[3], 16), Long.parseUnsignedLong(f[4], 16), hasFlags ? f[6] : "",
                    Long.parseLong(f[hasFlags ? 9 : 8])));
        }
        return sections;
    }

    /** Compiles C source with gcc in {@code dir}; skips the test when gcc is missing or cannot build it. */
    static Path gcc(Path dir, String source, String output, String... options) throws IOException {
        Path c = dir.resolve(output + ".c");
        Files.writeString(c, source);
        List<String> command = new ArrayList<>(List.of("gcc"));
        command.addAll(List.of(options));
        command.addAll(List.of("-o", output, c.getFileName().toString()));
        Optional<List<String>> out = tryRun(dir, command.toArray(new String[0]));
        assumeTrue(out.isPresent(), () -> String.join(" ", command) + " does not work here");
        return dir.resolve(output);
    }
}

package org.hyperprof.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Rust program (generics, closures, trait impls, nested modules) built at test time with rustc,
 * with legacy and with v0 symbol names: every function name demangles as c++filt 2.40 prints it,
 * legacy names without c++filt's {@code ::h<hash>} suffix.
 */
class RustNamesTest {
    private static final List<Path> RUSTC = List.of(Path.of(System.getProperty("user.home"), ".cargo",
            "bin", "rustc"), Path.of("/usr/bin/rustc"));

    private final Demangler demangler = new Demangler();

    @TempDir
    Path dir;

    @Test
    void legacyNamesAsCppFiltPrintsThemWithoutTheHash() throws IOException {
        List<String> names = names(build("legacy", "-Z", "unstable-options", "-C", "symbol-mangling-version=legacy"), "_ZN");
        assertTrue(names.stream().anyMatch(n -> demangler.full(n).equals("prog::main")), "prog::main is among " + names);
        List<String> expected = Tools.run(List.of("c++filt"), names).stream()
                .map(line -> line.replaceFirst("::h[0-9a-f]{16}$", "")).toList();
        agrees(names, expected);
    }

    @Test
    void v0NamesAsCppFiltPrintsThem() throws IOException {
        List<String> names = names(build("v0", "-C", "symbol-mangling-version=v0"), "_R");
        List<String> full = names.stream().map(demangler::full).toList();
        assertTrue(full.stream().anyMatch(n -> n.matches("<prog\\[\\p{XDigit}+]::outer::inner::Square as prog\\[\\p{XDigit}+]::outer::inner::Shape>::area")),
                "the trait impl's method is among the names");
        assertTrue(full.stream().anyMatch(n -> n.matches("prog\\[\\p{XDigit}+]::apply::<prog\\[\\p{XDigit}+]::main::\\{closure#0}>")),
                "the generic function instantiated with a closure is among the names");
        agrees(names, Tools.run(List.of("c++filt"), names));
    }

    private void agrees(List<String> names, List<String> expected) {
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (!expected.get(i).equals(demangler.full(names.get(i)))) {
                mismatches.add(names.get(i) + "\n  c++filt:   " + expected.get(i) + "\n  demangler: " + demangler.full(names.get(i)));
            }
            if (!demangler.full(names.get(i)).equals(demangler.brief(names.get(i)))) {
                mismatches.add(names.get(i) + ": brief differs from full for a Rust name");
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())), mismatches.size() + " differ");
    }

    private List<String> names(Path executable, String prefix) {
        List<String> names = Tools.textSymbols(executable).stream().filter(n -> n.startsWith(prefix)).toList();
        assertTrue(!names.isEmpty(), "names starting with " + prefix + " in " + executable);
        return names;
    }

    private Path build(String name, String... mangling) throws IOException {
        Path rustc = RUSTC.stream().filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(rustc != null, "no rustc on this machine");
        Path source = dir.resolve("prog.rs");
        try (InputStream in = RustNamesTest.class.getResourceAsStream("prog.rs")) {
            Files.copy(in, source);
        }
        Path out = dir.resolve(name);
        List<String> command = new ArrayList<>(List.of(rustc.toString(), "-O", "--crate-name", "prog", "-o", out.toString()));
        command.addAll(List.of(mangling));
        command.add(source.toString());
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("RUSTC_BOOTSTRAP", "1"); // legacy names need -Z on recent rustc
        try {
            assertEquals(0, builder.start().waitFor(), "rustc builds the test program: " + command);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return out;
    }
}

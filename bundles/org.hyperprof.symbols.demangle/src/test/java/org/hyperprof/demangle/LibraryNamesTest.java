package org.hyperprof.demangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every function name of the JDK's libjvm.so and of libstdc++ (about 50,000 names) demangles as
 * binutils' c++filt prints it, and briefly as {@code c++filt -p} does; c++filt runs at test time,
 * once per list.
 */
class LibraryNamesTest {
    private static final Path LIBSTDCXX = Path.of("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");

    private final Demangler demangler = new Demangler();

    @Test
    void everyFunctionOfLibjvmAsCppFiltPrintsIt() {
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        assertTrue(Files.isRegularFile(libjvm), "the JDK running the tests has " + libjvm);
        agreesWithCppFilt(Tools.functionNames(libjvm), 40_000);
    }

    @Test
    void everyFunctionOfLibstdcxxAsCppFiltPrintsIt() {
        assertTrue(Files.isRegularFile(LIBSTDCXX), LIBSTDCXX + " is installed (Debian's libstdc++6)");
        agreesWithCppFilt(Tools.functionNames(LIBSTDCXX), 4_000);
    }

    private void agreesWithCppFilt(List<String> names, int atLeast) {
        assertTrue(names.size() >= atLeast, "at least " + atLeast + " names, found " + names.size());
        List<String> full = Tools.run(List.of("c++filt"), names);
        List<String> brief = Tools.run(List.of("c++filt", "-p"), names);
        assertEquals(names.size(), full.size());
        assertEquals(names.size(), brief.size());
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (!full.get(i).equals(demangler.full(name))) {
                mismatches.add(name + "\n  c++filt:   " + full.get(i) + "\n  demangler: " + demangler.full(name));
            }
            if (!brief.get(i).equals(demangler.brief(name))) {
                mismatches.add(name + "\n  c++filt -p: " + brief.get(i) + "\n  demangler:  " + demangler.brief(name));
            }
        }
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())),
                mismatches.size() + " of " + names.size() + " names differ from c++filt (first 20 shown)");
    }
}

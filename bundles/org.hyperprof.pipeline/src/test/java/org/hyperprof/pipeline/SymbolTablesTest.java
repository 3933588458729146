package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.input.SymbolFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One cache for every source: a symbol file is read once per version, by the resolver serving its format. */
class SymbolTablesTest {

    /** Reads one function named after the file's first line; counts its loads; fails on "broken". */
    private static final class CountingResolver implements SymbolResolver {
        private final String name;
        int loads;

        CountingResolver(String name) {
            this.name = name;
        }

        @Override
        public String format() {
            return "text";
        }

        @Override
        public SymbolTable load(ImageSource source) throws SymbolFileException {
            loads++;
            String first;
            try (InputStream in = source.content().open()) {
                first = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("");
            } catch (IOException e) {
                throw new SymbolFileException(source.location(), "cannot be read", e);
            }
            if (first.equals("broken")) {
                throw new SymbolFileException(source.location(), 1, "broken");
            }
            return new SymbolTable(source.imageName(), new long[] {0x1000}, new long[] {0x10},
                    new String[] {first}, new String[1]);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private final SymbolTables tables = new SymbolTables();

    private static ImageSource file(Path p) {
        return SymbolFiles.source("app", "text", p);
    }

    @Test
    void aResolverIsBoundByItsFormatPropertyAndOneWithoutItIsRefusedNamingTheProperty() {
        CountingResolver a = new CountingResolver("a");
        CountingResolver b = new CountingResolver("b");
        tables.bindResolver(a, Map.of(SymbolResolver.FORMAT, "nm"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> tables.bindResolver(b, Map.of()));
        assertTrue(e.getMessage().contains(SymbolResolver.FORMAT), e.getMessage());
        assertEquals(List.of("nm"), tables.formats());
        assertSame(a, tables.resolver("nm"));
        tables.unbindResolver(a, Map.of(SymbolResolver.FORMAT, "nm"));
        assertEquals(List.of(), tables.formats());
        assertThrows(IllegalArgumentException.class, () -> tables.addResolver(" ", a));
    }

    @Test
    void aFileIsReadOncePerVersionSoARewrittenFileIsReadAgain(@TempDir Path dir) throws Exception {
        CountingResolver r = new CountingResolver("r");
        tables.addResolver("text", r);
        Path p = Files.writeString(dir.resolve("app.map"), "main\n");
        SymbolTable first = tables.table(file(p));
        assertSame(first, tables.table(file(p)));
        assertTrue(tables.cached("text", p));
        assertEquals(1, r.loads);
        Files.writeString(p, "other\n");
        Files.setLastModifiedTime(p, FileTime.fromMillis(Files.getLastModifiedTime(p).toMillis() + 5_000));
        assertEquals("other", tables.table(file(p)).name(0));
        assertEquals(2, r.loads);
    }

    @Test
    void aLocationThatIsNoFileIsReadOncePerLocation() throws Exception {
        CountingResolver r = new CountingResolver("r");
        tables.addResolver("text", r);
        ImageSource resource = new ImageSource("app", "text", "scenarios/symbols/app.map",
                () -> new java.io.ByteArrayInputStream("main\n".getBytes(StandardCharsets.UTF_8)));
        assertSame(tables.table(resource), tables.table(resource));
        assertEquals(1, r.loads);
    }

    @Test
    void aFailedLoadIsNotCached(@TempDir Path dir) throws Exception {
        CountingResolver r = new CountingResolver("r");
        tables.addResolver("text", r);
        Path p = Files.writeString(dir.resolve("app.map"), "broken\n");
        assertThrows(SymbolFileException.class, () -> tables.table(file(p)));
        assertThrows(SymbolFileException.class, () -> tables.table(file(p)));
        assertEquals(2, r.loads, "each session reports the failure itself");
    }

    @Test
    void theFirstResolverServesAndADepartingOneTakesItsTablesWithIt(@TempDir Path dir) throws Exception {
        CountingResolver first = new CountingResolver("first");
        CountingResolver second = new CountingResolver("second");
        tables.addResolver("text", first);
        tables.addResolver("text", second);
        Path p = Files.writeString(dir.resolve("app.map"), "main\n");
        SymbolTable before = tables.table(file(p));
        assertEquals(1, first.loads);
        int generation = tables.generation();
        tables.removeResolver("text", first);
        assertTrue(tables.generation() != generation, "images without a resolver are retried");
        assertNotSame(before, tables.table(file(p)));
        assertEquals(1, second.loads, "the next resolver of the format reads the file again");
        tables.removeResolver("text", second);
        SymbolTables.NoResolverException e = assertThrows(SymbolTables.NoResolverException.class,
                () -> tables.table(file(p)));
        assertTrue(e.getMessage().contains("installed formats: none"), e.getMessage());
    }

    @Test
    void whatASourceDerivesFromATableIsSharedWithIt(@TempDir Path dir) throws Exception {
        tables.addResolver("text", new CountingResolver("r"));
        Path p = Files.writeString(dir.resolve("app.map"), "main\n");
        SymbolTables.Entry entry = tables.entry("text", file(p), null);
        assertEquals("perf's names", entry.derived("names", () -> "perf's names"));
        assertEquals("perf's names", tables.entry("text", file(p), null).derived("names", () -> "again"));
        assertNull(entry.<String>derived("nothing", () -> null));
    }
}

package org.hyperprof.profiler;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.symbols.SymbolTable;

/** Reads {@code <hex start> <hex size> <name>} lines; counts loads; a line "BAD" is a file error. */
final class FakeResolver implements SymbolResolver {
    final AtomicInteger loads = new AtomicInteger();

    @Override
    public String format() {
        return "kallsyms";
    }

    @Override
    public SymbolTable load(ImageSource source) throws SymbolFileException {
        loads.incrementAndGet();
        List<long[]> rows = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(source.content().open(), StandardCharsets.UTF_8))) {
            String line;
            int no = 0;
            while ((line = r.readLine()) != null) {
                no++;
                String[] f = line.trim().split("\\s+");
                if (f.length != 3) {
                    throw new SymbolFileException(source.location(), no, "expected '<start> <size> <name>', got '" + line + "'");
                }
                rows.add(new long[] {Long.parseUnsignedLong(f[0], 16), Long.parseLong(f[1], 16)});
                names.add(f[2]);
            }
        } catch (IOException e) {
            throw new SymbolFileException(source.location(), "cannot read", e);
        }
        long[] starts = new long[rows.size()];
        long[] sizes = new long[rows.size()];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = rows.get(i)[0];
            sizes[i] = rows.get(i)[1];
        }
        return new SymbolTable(source.imageName(), starts, sizes, names.toArray(new String[0]), new String[starts.length]);
    }
}

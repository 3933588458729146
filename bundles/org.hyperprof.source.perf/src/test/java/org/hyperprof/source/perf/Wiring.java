package org.hyperprof.source.perf;

import org.hyperprof.pipeline.SymbolTables;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;

/** Plain-Java wiring of the importer with the real resolvers, as DS wires it in the framework. */
final class Wiring {

    private Wiring() {
    }

    static SymbolTables resolvers() {
        SymbolTables r = new SymbolTables();
        r.addResolver(Symbolizer.ELF, new ElfResolver());
        r.addResolver(Symbolizer.KALLSYMS, new KallsymsResolver());
        return r;
    }
}

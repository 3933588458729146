package org.hyperprof.source.perf;

import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;

/** Plain-Java wiring of the importer with the real resolvers, as DS wires it in the framework. */
final class Wiring {

    private Wiring() {
    }

    static SymbolResolvers resolvers() {
        SymbolResolvers r = new SymbolResolvers();
        r.add(SymbolResolvers.ELF, new ElfResolver());
        r.add(SymbolResolvers.KALLSYMS, new KallsymsResolver());
        return r;
    }
}

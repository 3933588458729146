package org.hyperprof.hypervisor.sim.scenario;

import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;

/**
 * An image of the scenario: the hypervisor, a kernel, a module or a user process, where it is
 * loaded and its symbol file.
 *
 * @param name     the image's name as reports show it
 * @param kind     hypervisor, kernel, module or user
 * @param start    first run-time address
 * @param end      first run-time address past the image
 * @param loadBias added to symbol-file addresses to get run-time addresses
 * @param source   where the symbol file is
 * @param symbols  the functions read from the symbol file
 * @param line     the scenario line that declares it
 */
public record ImageSpec(String name, ImageKind kind, long start, long end, long loadBias, ImageSource source,
        SymbolFile symbols, int line) {

    /** The mapping a domain's daemon sees for this image. */
    public Mapping mapping() {
        return new Mapping(start, end, name, kind, source, loadBias);
    }

    /** Run-time address of a function of the symbol file. */
    public long runtimeStart(int symbolIndex) {
        return symbols.start(symbolIndex) + loadBias;
    }

    boolean overlaps(ImageSpec other) {
        return Long.compareUnsigned(start, other.end) < 0 && Long.compareUnsigned(other.start, end) < 0;
    }
}

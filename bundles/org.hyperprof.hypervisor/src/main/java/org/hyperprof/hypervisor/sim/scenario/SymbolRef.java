package org.hyperprof.hypervisor.sim.scenario;

/**
 * A function of an image, resolved against the image's symbol file.
 *
 * @param image the image
 * @param index the function's index in the image's {@link SymbolFile}
 */
public record SymbolRef(ImageSpec image, int index) {

    public String name() {
        return image.symbols().name(index);
    }

    /** Run-time address of the function's first byte. */
    public long start() {
        return image.runtimeStart(index);
    }

    /** Length in bytes (up to the next symbol). */
    public long size() {
        return image.symbols().length(index);
    }
}

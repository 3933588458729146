package org.hyperprof.api.host;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;

/**
 * One range of a domain's address space: [start, end) holds an image loaded at {@code start}.
 *
 * @param start   first address
 * @param end     first address past the image
 * @param image   the image's name
 * @param kind    hypervisor, kernel, module or user
 * @param symbols the image's symbol file, or null when it has none
 * @param loadBias added to symbol-file addresses to get run-time addresses (0 for absolute tables)
 */
public record Mapping(long start, long end, String image, ImageKind kind, ImageSource symbols, long loadBias) {

    public boolean contains(long pc) {
        return Long.compareUnsigned(pc, start) >= 0 && Long.compareUnsigned(pc, end) < 0;
    }
}

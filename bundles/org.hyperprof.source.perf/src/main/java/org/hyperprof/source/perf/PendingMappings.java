package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.List;

/**
 * Mappings in the order their records came: those of an image the session has not named yet (no
 * sample hit it), kept until a sample names it, and those of one process told to the session
 * ({@link MappingFeed}). Filled once per map record, off the sample path: a record each is cheap.
 */
final class PendingMappings {

    /** One mapping, its map record the {@code seq}-th. */
    record Mapping(long seq, int pid, int image, long start, long limit, long fileOffset) {

        /** The same mapping of image {@code id}. */
        Mapping of(int id) {
            return new Mapping(seq, pid, id, start, limit, fileOffset);
        }

        /** Whether it and {@code [from, to)} share an address. */
        boolean overlaps(long from, long to) {
            return Long.compareUnsigned(start, to) < 0 && Long.compareUnsigned(from, limit) < 0;
        }
    }

    private final List<Mapping> mappings = new ArrayList<>();

    /** Adds a mapping, keeping the list in record order. */
    void add(Mapping m) {
        int at = mappings.size();
        while (at > 0 && mappings.get(at - 1).seq() > m.seq()) {
            at--;
        }
        mappings.add(at, m);
    }

    int size() {
        return mappings.size();
    }

    Mapping get(int i) {
        return mappings.get(i);
    }
}

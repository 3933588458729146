package org.hyperprof.api.output;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What a whole-file write did.
 *
 * @param target    the target as given (absolute)
 * @param file      where the bytes went: the target with its symbolic links resolved
 * @param placement how they got there
 * @param bytes     how many were written
 */
public record Written(Path target, Path file, Placement placement, long bytes) {

    /** How the bytes reached the file. */
    public enum Placement {
        /** No file was there: a new regular file. */
        CREATED,
        /** A regular file was replaced whole (by a rename), keeping its mode. */
        REPLACED,
        /** The target is no regular file (a FIFO, a character device, a socket, a descriptor): streamed into it. */
        STREAMED
    }

    public Written {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(placement, "placement");
    }

    /** True when the target was a symbolic link (or a chain of them) to {@link #file()}. */
    public boolean throughLink() {
        return !target.equals(file);
    }
}

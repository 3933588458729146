package org.hyperprof.command.kit;

import org.hyperprof.api.output.Written;

/**
 * What a command says about a file it wrote through {@code OutputFiles}: where the bytes went (through
 * a link, into a stream, or as a file) and how many, in the same words in every bundle.
 */
public final class WrittenLine {
    private WrittenLine() {
    }

    /**
     * {@code <verb> <what> to <target> (<n> bytes)}, or {@code streamed <what> into ...} when the target
     * is no regular file (a FIFO, /dev/stdout); the target is followed by {@code -> <file>} when it was a link.
     *
     * @param verb what the command did to a file, e.g. {@code wrote} or {@code archived}
     */
    public static String of(Written w, String verb, String what) {
        return (w.placement() == Written.Placement.STREAMED ? "streamed " + what + " into " : verb + " " + what + " to ")
                + where(w) + " (" + w.bytes() + " bytes)";
    }

    /** The target as given, and {@code -> <file>} when it was a symbolic link to that file. */
    public static String where(Written w) {
        return w.target() + (w.throughLink() ? " -> " + w.file() : "");
    }
}

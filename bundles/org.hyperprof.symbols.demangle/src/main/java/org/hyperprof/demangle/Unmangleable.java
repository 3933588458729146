package org.hyperprof.demangle;

/** A name that is not valid in the grammar (or too deep, or too long): the caller keeps it as it was. */
final class Unmangleable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unmangleable() {
        // No stack trace: this is the expected outcome for a name that is not mangled.
        super(null, null, false, false);
    }
}

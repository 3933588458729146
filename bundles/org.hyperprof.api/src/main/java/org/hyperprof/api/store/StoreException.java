package org.hyperprof.api.store;

/**
 * The store could not be read or written: its file is locked by another process past the wait, was
 * made by another schema version, or cannot be opened. The message says what to do.
 */
public class StoreException extends Exception {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

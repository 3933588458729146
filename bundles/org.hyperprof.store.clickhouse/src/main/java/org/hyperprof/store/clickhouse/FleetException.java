package org.hyperprof.store.clickhouse;

/**
 * What went wrong talking to the fleet store, by kind, with a message that says what to do. The
 * message never holds the password.
 */
public final class FleetException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a request failed. */
    public enum Kind {
        /** No connection, a connection cut, a reply that did not come in time: try again later. */
        UNREACHABLE,
        /** The server refused the user or password. */
        CREDENTIALS,
        /** The server lacks a function, a table engine or a syntax the statement needs. */
        MISSING_FEATURE,
        /** The server refused the statement for another reason (its code and text are in the message). */
        REFUSED,
        /** A reply that does not parse as ClickHouse's TabSeparated or error text. */
        BAD_REPLY,
        /** The fleet's tables are of a schema this Hyperprof does not write. */
        SCHEMA
    }

    private final Kind kind;
    private final int code;

    public FleetException(Kind kind, int code, String message) {
        super(message);
        this.kind = kind;
        this.code = code;
    }

    public FleetException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.code = -1;
    }

    public Kind kind() {
        return kind;
    }

    /** ClickHouse's error code, -1 when it gave none. */
    public int code() {
        return code;
    }

    /** Whether trying again later may succeed (the server was not reached, or failed midway). */
    public boolean retryable() {
        return kind == Kind.UNREACHABLE;
    }
}

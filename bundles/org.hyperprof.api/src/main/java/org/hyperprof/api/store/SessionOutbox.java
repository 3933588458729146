package org.hyperprof.api.store;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The session store as the fleet's outbox: the sessions a {@link SessionShipping} took (the schema's
 * {@code ship_pending}), kept until they are shipped or let go, and their rows read back for shipping.
 * Retention never deletes a session the outbox holds.
 */
@ProviderType
public interface SessionOutbox {
    /**
     * The tables a session's rows are in, in the order a shipper copies them: {@code sessions}, the row
     * that says the session is whole, is last.
     */
    List<String> TABLES = List.of("samples", "stacks", "names", "truth", "counters", "buffers", "consumers",
            "host_counters", "sessions");

    /** The ended sessions the outbox holds, oldest first (the order they are shipped in). */
    List<StoredSession> pending() throws StoreException;

    /**
     * Writes the session's rows of one of {@link #TABLES} to {@code out} as TabSeparated text (one line a
     * row, columns in the schema's order, {@code \N} for NULL, text escaped with backslashes, lists as
     * {@code ['a','b']}, booleans as 0 or 1, times as seconds since the epoch), each line starting with
     * {@code prefix}. The {@code samples} lines end with four more columns: the event as the session
     * names it ({@code EVENT:count:0xunitmask}), the domain's, the image's and the symbol's names (empty
     * when not known). The {@code sessions} line leaves out {@code ship_pending}.
     *
     * @return the lines written
     * @throws StoreException when the store holds no such session, or cannot be read
     */
    long copy(long session, String table, String prefix, OutputStream out) throws StoreException, IOException;

    /**
     * Takes the session out of the outbox (it was shipped, or the outbox let it go); the session stays
     * stored. False when the store holds no such session.
     */
    boolean release(long session) throws StoreException;
}

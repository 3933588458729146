package org.hyperprof.api.store;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The sessions kept in the session store. Each call opens the store, answers and closes it again,
 * so two Hyperprof processes can share one store; a call waits a bounded time for the other's lock.
 */
@ProviderType
public interface SessionStore {

    /** The sessions the query selects, newest first. */
    List<StoredSession> sessions(SessionQuery query) throws StoreException;

    /** The session of that id, if the store holds it. */
    Optional<StoredSession> session(long id) throws StoreException;

    /** Deletes the session and all its rows; false when the store held no such session. */
    boolean delete(long id) throws StoreException;

    /** Where the store is and what it holds. */
    StoreInfo info() throws StoreException;

    /** The session named {@code name}, if the store holds one (names are unique in a store). */
    Optional<StoredSession> named(String name) throws StoreException;

    /**
     * Names a session (OProfile's {@code --save=NAME}): one that is still open in this process keeps the
     * name through the row written at its end. A name is unique in a store, never blank, never a
     * number (a number names a session by its id); null takes the name away.
     *
     * @return false when the store has no such session
     * @throws StoreException when another session has the name, the name is not one, or the store fails
     */
    boolean name(long id, String name) throws StoreException;

    /**
     * Adds labels to a session ({@code remove} false) or takes them away ({@code remove} true). A label is
     * one word without commas.
     *
     * @return false when the store has no such session
     */
    boolean label(long id, Collection<String> labels, boolean remove) throws StoreException;

    /**
     * Marks a session as made by a study (a run of {@code hp:study}): hidden from the default listing
     * ({@link SessionQuery#all()} shows it), its {@link StoredSession#study()} the study's name.
     *
     * @return false when the store has no such session
     */
    boolean markStudy(long id, String study) throws StoreException;

    /**
     * Applies the store's retention settings now (they apply after each stored session anyway): deletes
     * the oldest sessions beyond them, never a running one nor one the fleet's outbox holds.
     *
     * @return the line that says what was deleted and why; empty when nothing was
     */
    Optional<String> prune() throws StoreException;

    /**
     * Runs one read-only SQL query over the schema (README: "The session store") on a connection of its
     * own: opened read-only, with access to files, the network and extensions disabled and its
     * configuration locked before the query runs, so a query can read the store and nothing else.
     *
     * @param maxRows at most this many rows are kept; {@link QueryRows#leftOff()} counts the rest
     * @throws StoreException when the store does not exist yet, or the engine refuses or fails the query
     */
    QueryRows query(String sql, int maxRows) throws StoreException;
}

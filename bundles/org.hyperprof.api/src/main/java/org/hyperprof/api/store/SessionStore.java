package org.hyperprof.api.store;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.hyperprof.api.output.Content;
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

    /**
     * Replays a stored session through the sample pipeline to every consumer bound now (a report
     * installed today renders a session recorded last week): the consumers see it start under its
     * own id and end with its recorded books.
     *
     * @return the summary the consumers got; empty when the store holds no such session
     * @throws StoreException when the store cannot be read, or nothing can replay it now (no profiler,
     *                        another session running)
     */
    Optional<org.hyperprof.api.sample.SessionSummary> replay(long id) throws StoreException;

    /**
     * Replays a stored session to {@code consumer} alone, on the caller's thread and outside the
     * pipeline (a report made on request, as {@code hp:report --sort} makes perf's): it sees the session
     * start, every batch (read during the call only) and the end with the recorded books.
     *
     * @return the recorded summary; empty when the store holds no such session
     * @throws StoreException when the store cannot be read
     * @since 1.3
     */
    default Optional<org.hyperprof.api.sample.SessionSummary> replay(long id,
            org.hyperprof.api.sample.SampleConsumer consumer) throws StoreException {
        throw new StoreException("this session store replays to every consumer only (hp:replay)");
    }

    /** Where the store is and what it holds. */
    StoreInfo info() throws StoreException;

    /**
     * The differential profile of two stored sessions ({@code hp:diff}).
     *
     * @throws StoreException for an unknown session, sessions of different events, or an unknown domain
     */
    SessionDiff diff(DiffRequest request) throws StoreException;

    /** The call stacks of both sessions with their samples in each, for a differential flame graph. */
    List<DiffStack> diffStacks(DiffRequest request) throws StoreException;

    /**
     * The session's distinct call stacks with their samples, aggregated from the stored rows in one
     * query (no replay), for a flame graph of a stored session. The same named stack may come more than
     * once (rows whose ids differ where their names do not); their samples add up.
     *
     * @param event  the index of the session's event whose samples count
     * @param domain one domain's stacks, or -1 for all
     * @throws StoreException when the store holds no such session, or it has no such event
     * @since 1.5
     */
    default List<StoredStack> stacks(long id, int event, int domain) throws StoreException {
        throw new StoreException("this session store keeps no stacks to aggregate; replay the session instead"
                + " (hp:replay " + id + ")");
    }

    /**
     * Merges ended sessions of the same events into a new one, as opreport merges sample files: rows
     * added up by name, books summed; its origin names them ({@code hp:merge}).
     *
     * @param name the new session's name, or null
     * @return the new session's id
     * @throws StoreException for an unknown or running session, or sessions of different events
     */
    long merge(List<Long> sessions, String name) throws StoreException;

    /**
     * The session as one portable archive (the README's "Archives": a zip of a manifest and one Parquet
     * file per table), for {@link org.hyperprof.api.output.OutputFiles} to write. The id is checked now;
     * the rows are read when the content is written.
     *
     * @throws StoreException when the store holds no such session
     */
    Content archive(long id) throws StoreException;

    /**
     * Restores an archive into this store (made when missing) in one transaction, keeping the session's
     * id and its row as archived: all its rows or none.
     *
     * @return the session restored
     * @throws StoreException for an id already stored, an archive of a newer format or schema, or a
     *                        damaged one; the message names the file and entry and says what to do
     */
    StoredSession restore(Path archive) throws StoreException;

    /**
     * The session's aggregated samples joined with their names (event, domain, process, image, symbol,
     * callers) as one flat Parquet table, for {@link org.hyperprof.api.output.OutputFiles} to write.
     *
     * @param domain one domain's rows, or -1 for all
     * @throws StoreException when the store holds no such session
     */
    Content samplesParquet(long id, int domain) throws StoreException;

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

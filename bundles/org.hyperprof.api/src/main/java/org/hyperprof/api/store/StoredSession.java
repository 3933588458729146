package org.hyperprof.api.store;

import java.time.Instant;
import java.util.List;

import org.hyperprof.api.sample.Accounting;

/**
 * One session as the store keeps it: what {@code SessionInfo} said at its start and what its
 * {@code SessionSummary} said at its end, with the store's own books.
 *
 * @param id         the session's id
 * @param hostId     the identity of the host that made it (the store's {@code host.id})
 * @param source     where its samples came from ({@code simulator}, {@code perf.data}, ...)
 * @param name       the name it was given, or null
 * @param labels     labels given later; empty when none
 * @param what       the scenario's host or the recording it read
 * @param cpuType    OProfile's cpu_type
 * @param events     each counter as {@code EVENT:count:unitmask}, unit mask in hex
 * @param startedAt  when the store saw it start
 * @param endedAt    when it ended, or null while it runs (or if its process died)
 * @param status     {@link #RUNNING}, {@link #COMPLETED}, {@link #INCOMPLETE} or {@link #STOPPED}
 * @param samples    the samples stored: the sum of the sample counts of its rows
 * @param accounting the session's books: taken = delivered + lost + dropped + invalid
 * @param received   samples the store received
 * @param missed     samples the store missed (received + missed = delivered to consumers)
 * @param notes      problems met, one line each
 * @param study      the study that made it, or null
 * @param hidden     whether the default listing leaves it out (a study's sessions)
 * @param origin     the stored sessions it was made from (a merge's); empty for a session a source made
 * @param profiledNanos the time it profiled: simulated time for the simulator, first to last sample of
 *                   a recording; -1 when not known
 */
public record StoredSession(long id, String hostId, String source, String name, List<String> labels, String what,
        String cpuType, List<String> events, Instant startedAt, Instant endedAt, String status, long samples,
        Accounting accounting, long received, long missed, List<String> notes, String study, boolean hidden,
        List<Long> origin, long profiledNanos) {

    /** Started, not yet ended (or its process died before the end was written). */
    public static final String RUNNING = "running";
    /** Ended as it should, every sample stored. */
    public static final String COMPLETED = "completed";
    /** Ended, but the store missed samples ({@link #missed()}). */
    public static final String INCOMPLETE = "incomplete";
    /** Stopped before its end (the source departed, the user stopped it). */
    public static final String STOPPED = "stopped";

    public StoredSession {
        labels = List.copyOf(labels);
        events = List.copyOf(events);
        notes = List.copyOf(notes);
        origin = List.copyOf(origin);
    }

    /** A session a source made (no origin), its profiled time not known. */
    public StoredSession(long id, String hostId, String source, String name, List<String> labels, String what,
            String cpuType, List<String> events, Instant startedAt, Instant endedAt, String status, long samples,
            Accounting accounting, long received, long missed, List<String> notes, String study, boolean hidden) {
        this(id, hostId, source, name, labels, what, cpuType, events, startedAt, endedAt, status, samples,
                accounting, received, missed, notes, study, hidden, List.of(), -1);
    }
}

package org.hyperprof.report.flamegraph;

import java.util.List;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;

/**
 * The flame graph JSON of a stored session this consumer does not keep, from the stacks the store sums
 * in one query: a session of a million samples opens without being replayed through the pipeline.
 */
final class StoredFlame {
    private StoredFlame() {
    }

    /** Whether a request can be answered from the store's stacks: one named session, no vCPU frames, no filter. */
    static boolean answers(ReportRequest request, FlameOptions options) {
        return request.sessionId() != ReportRequest.LATEST && !options.vcpus() && options.filter().all();
    }

    /**
     * The JSON, or null when the store holds no ended session of that id (then the consumer answers as
     * it always has: the session must be replayed first).
     */
    static String json(SessionStore store, ReportRequest request, FlameOptions options) throws ReportException {
        try {
            StoredSession session = store.session(request.sessionId()).orElse(null);
            if (session == null || StoredSession.RUNNING.equals(session.status())) {
                return null;
            }
            List<StoredStack> stacks = store.stacks(session.id(), options.counter(), request.domain());
            return PathFlame.json(stacks, session, options.counter(), request.domain());
        } catch (StoreException e) {
            throw new ReportException("the flame graph of stored session " + request.sessionId()
                    + " cannot be read from the store: " + e.getMessage());
        }
    }
}

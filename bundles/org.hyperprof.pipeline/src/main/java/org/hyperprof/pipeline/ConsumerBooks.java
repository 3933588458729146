package org.hyperprof.pipeline;

import org.hyperprof.api.sample.ConsumerAccounting;

/**
 * What one consumer received and missed in one session. Every sample published for the session
 * ends in exactly one column: missed at once (a full queue, a consumer not bound, one that arrived
 * later), or queued and then received or missed (dropped from the queue, the consumer threw, or
 * still queued or in its hands when the session ended). So received + missed = published for
 * every consumer, whenever it came or went.
 *
 * <p>Updated once per batch, from the publishing thread and the consumer's delivery thread, under
 * this object's monitor. After {@link #close()} the books are final: a batch the consumer finishes
 * later was already counted as missed.
 */
final class ConsumerBooks {
    final String name;
    private long received;
    private long missed;
    /** Queued for the consumer or in its hands: not yet received, not yet missed. */
    private long pending;
    private boolean closed;
    private String problem;

    ConsumerBooks(String name) {
        this.name = name;
    }

    /** Samples that will not be offered to this consumer at all. */
    synchronized void miss(long samples) {
        if (!closed) {
            missed += samples;
        }
    }

    /** A batch was queued for the consumer. */
    synchronized void queued(int samples) {
        if (!closed) {
            pending += samples;
        }
    }

    /** A queued batch was handed to the consumer, which took it. */
    synchronized void receive(int samples) {
        if (!closed) {
            pending -= samples;
            received += samples;
        }
    }

    /** A queued batch never reached the consumer (dropped from its queue, or the consumer threw). */
    synchronized void lose(int samples) {
        if (!closed) {
            pending -= samples;
            missed += samples;
        }
    }

    /** Records a failure; only the first one is kept. */
    synchronized void problem(String text) {
        if (problem == null) {
            problem = text;
        }
    }

    synchronized long received() {
        return received;
    }

    synchronized long missed() {
        return missed;
    }

    /** The final books at the session's end: what is still queued or in the consumer's hands is missed. */
    synchronized ConsumerAccounting close() {
        if (!closed) {
            if (pending > 0) {
                problem("too slow: " + pending + " samples were still queued for it or in its hands when the"
                        + " session ended");
            }
            missed += pending;
            pending = 0;
            closed = true;
        }
        return new ConsumerAccounting(name, received, missed, problem);
    }
}

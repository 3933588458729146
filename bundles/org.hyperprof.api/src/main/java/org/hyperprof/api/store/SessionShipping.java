package org.hyperprof.api.store;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What ships the stored sessions elsewhere (a fleet store): the session store hands it its
 * {@link SessionOutbox} when it binds it, asks it, as each session's end is stored, whether the session
 * ships, and holds those that do in the outbox until shipped. Sessions the store derives (merges,
 * restores) are never offered: the host that made their origin ships that. (The store hands itself over
 * rather than the shipping referencing the store: the two referencing each other would be a cycle.)
 */
@ConsumerType
public interface SessionShipping {
    /** The store's outbox to ship from, now that the store bound this shipping. */
    void outbox(SessionOutbox outbox);

    /** The store that gave {@code outbox} goes away: ship nothing more from it. */
    void outboxGone(SessionOutbox outbox);

    /** Whether {@code session}, stored now, is to ship (by its source, its study, ...). */
    boolean ships(StoredSession session);

    /** The session is in the outbox now: ship it when the fleet store can be reached. */
    void pending(StoredSession session);
}

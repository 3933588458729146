package org.hyperprof.api.store;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What ships the stored sessions elsewhere (a fleet store): the session store asks it, as each session's
 * end is stored, whether the session ships, and holds those that do in its {@link SessionOutbox} until
 * shipped. Sessions the store derives (merges, restores) are never offered: the host that made their
 * origin ships that.
 */
@ConsumerType
public interface SessionShipping {
    /** Whether {@code session}, stored now, is to ship (by its source, its study, ...). */
    boolean ships(StoredSession session);

    /** The session is in the outbox now: ship it when the fleet store can be reached. */
    void pending(StoredSession session);
}

package org.hyperprof.api.study;

import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/** The results of the last study {@code hp:study} ran in this framework. Implemented by the study bundle. */
@ProviderType
public interface StudyResults {
    /** The last study that ran to its end (all seeds, or stopped after some), or empty before any. */
    Optional<StudyReport> last();
}

package org.hyperprof.api.source;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.hyperprof.api.sample.SessionSummary;
import org.osgi.annotation.versioning.ProviderType;

/** Runs the installed {@link SampleSource}s as sessions every consumer receives. Implemented by the pipeline. */
@ProviderType
public interface SampleSources {

    /** The installed sources: name to description, by name. */
    Map<String, String> sources();

    /**
     * Reads {@code file} with source {@code name} into a new session, published to every consumer
     * as it is read; returns when the session has ended. A source that fails part way ends the
     * session with what it delivered (the books say so) and the exception is thrown after.
     *
     * @throws IllegalArgumentException no source of that name is installed (the message lists them)
     * @throws IllegalStateException    another session is being published now
     * @throws IOException              what the source threw
     */
    SessionSummary read(String name, Path file) throws IOException;
}

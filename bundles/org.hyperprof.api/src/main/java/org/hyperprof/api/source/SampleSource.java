package org.hyperprof.api.source;

import java.io.IOException;
import java.nio.file.Path;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A file format Hyperprof reads into a session (folded stacks, a third party's trace format).
 * Register it as a DS service with the {@value #NAME} property; {@link SampleSources} finds it by
 * that name, also when it was installed while the framework runs.
 *
 * <h2>Threading and ordering</h2>
 * {@link #read} is called on the thread of whoever asked for the session (a shell command), once
 * per session; a source may be asked for several sessions at once, each with its own feed. Within
 * a read, the feed's calls are the source's order: what it names (domains, counters, images,
 * symbols, processes) before the samples that use those ids; the session starts at the first
 * sample, so everything named before it is in the session's start.
 */
@ConsumerType
public interface SampleSource {
    /** Service property: the source's name, as {@code hp:read NAME FILE} takes it. */
    String NAME = "source.name";

    /** A source is known by its {@value #NAME} property. */
    PluginIdentity IDENTITY = new PluginIdentity(NAME, "sample source", "folded");

    /** One line for {@code hp:sources}: what files it reads, where they come from. */
    String description();

    /**
     * Reads {@code file} into {@code feed}. Open the file with the {@code org.hyperprof.input}
     * bundle's {@code InputFile}, so a FIFO or a device is refused as everywhere
     * ({@link org.hyperprof.api.input.NotAFileException}).
     *
     * @throws SourceFormatException content that is not the source's format: the file, the line or
     *                               offset, what was expected there and what to do
     * @throws IOException           the file cannot be read
     */
    void read(Path file, SampleFeed feed) throws IOException;
}

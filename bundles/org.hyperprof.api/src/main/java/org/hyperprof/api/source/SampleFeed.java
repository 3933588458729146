package org.hyperprof.api.source;

import org.hyperprof.api.sample.ImageKind;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link SampleSource} puts what it reads: names first, then samples, each sample's callers
 * right after it (innermost first). Ids are the session's; a source keeps its own map from what it
 * read to them. Not thread-safe: one reading thread. Nothing here allocates per sample.
 */
@ProviderType
public interface SampleFeed {
    /** Names domain {@code domid} (the host is domain 0, named by default after the file). */
    void domain(int domid, String name);

    /**
     * Declares counter {@code number}: the event it counted and the events one sample stands for
     * ({@code period}, 1 for a source that counts samples). Without any, the session has one
     * counter 0 of event {@code SAMPLES}, period 1.
     */
    void counter(int number, String event, long period);

    /** An image (program, library, kernel) of a domain; returns its id. */
    int image(String name, ImageKind kind, int domid);

    /** A symbol (function) of an image; returns its id. */
    int symbol(String name, int image);

    /** Names process {@code pid} of a domain. */
    void process(int domid, int pid, String name);

    /**
     * Starts a sample: {@code mode} 0 user, 1 kernel, 2 hypervisor; {@code symbol} -1 for an
     * address no symbol covers; {@code weight} the events it stands for (at least 1); {@code time}
     * in nanoseconds, and {@code cpu}, {@code pid}, {@code tid}: -1 when unknown.
     */
    void sample(int domid, int vcpu, int mode, int counter, long pc, int image, int symbol, long weight, long time,
            int cpu, int pid, int tid);

    /**
     * Sets a flag of the sample just started, before its {@link #end()}: one of
     * {@link org.hyperprof.api.sample.SampleBatch}'s, {@code CHAIN_FROM_PC} (its callers began with
     * its own address) or {@code MODE_UNKNOWN} (the source could not tell its mode). A sample has
     * no flag unless one is set.
     *
     * @throws IllegalArgumentException for a value that is not one of those flags
     * @since 1.1
     */
    void flag(int flag);

    /**
     * A caller of the sample just started, innermost first, and the mode it ran in (as the
     * sample's; -1 when the source cannot tell).
     */
    void caller(long pc, int image, int symbol, int mode);

    /**
     * Image {@code image} lay at addresses {@code start} to {@code limit} (exclusive) of process
     * {@code pid} of domain {@code domid} ({@code -1}: of every process, as a kernel does), from file
     * offset {@code fileOffset} on; see {@link org.hyperprof.api.sample.ImageMapping}. Between
     * samples.
     *
     * @since 1.2
     */
    void mapping(int domid, int pid, int image, long start, long limit, long fileOffset);

    /**
     * The build-id of image {@code image}, in hex (see
     * {@link org.hyperprof.api.sample.SessionDictionary#imageBuildId}).
     *
     * @since 1.2
     */
    void buildId(int image, String hex);

    /** Ends the sample just started. */
    void end();

    /**
     * Samples the source read but could not deliver (a malformed line it skipped): counted in the
     * session's books as invalid, with why (said once per reason in the session's notes).
     */
    void invalid(long samples, String why);

    /** A line for the session's notes (something doubtful that did not stop the read). */
    void note(String line);
}

package org.hyperprof.api.profiler;

import java.util.List;
import java.util.Optional;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionSummary;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The daemon side: one oprofiled per domain, driven by opcontrol steps taken as that domain, and
 * the session that feeds the sample consumers.
 */
@ProviderType
public interface Profiler {
    /**
     * Runs opcontrol as domain {@code domid} on the current host. Understands {@code --start-daemon}
     * (with {@code --event=}, {@code --active-domains=}, {@code --xen=} and friends in the primary),
     * {@code --start}, {@code --stop}, {@code --shutdown}, {@code --reset} and {@code --status}, and
     * makes the hypercalls the real driver made for each, in the same order.
     */
    OpcontrolResult opcontrol(int domid, List<String> args);

    /** Runs a one-shot profile on the current host and returns its summary. */
    SessionSummary profile(ProfileRequest request, ProgressListener progress) throws ProfileException;

    /** The summary of the last session that ended, if any. */
    Optional<SessionSummary> lastSummary();

    /** The sample consumers bound now, by {@code consumer.name}. */
    List<String> consumers();

    /**
     * A profiler of its own over {@code hosts} (a host service of its own: see
     * {@link org.hyperprof.api.host.HostService#independent()}), with this profiler's symbol tables
     * and settings, feeding only {@code consumer}: for profiles that run beside this profiler's on
     * another thread (a study's runs on the second core). Its sessions reach no other consumer (no
     * report, no session store), and {@link #lastSummary()} here does not see them.
     *
     * @return empty when this profiler cannot make one (the caller then profiles here, one run after another)
     * @since 2.2
     */
    default Optional<Lane> lane(HostService hosts, String consumerName, SampleConsumer consumer) {
        return Optional.empty();
    }

    /** A profiler of its own (see {@link Profiler#lane}); closing it stops its consumer's delivery. */
    interface Lane extends AutoCloseable {
        Profiler profiler();

        @Override
        void close();
    }
}

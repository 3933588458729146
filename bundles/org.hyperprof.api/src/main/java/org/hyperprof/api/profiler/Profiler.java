package org.hyperprof.api.profiler;

import java.util.List;
import java.util.Optional;

import org.hyperprof.api.host.ProgressListener;
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
}

package org.hyperprof.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/** Hears that a host stopped for good (its CPU model departed, or it was replaced). */
@ConsumerType
@FunctionalInterface
public interface HostListener {
    void hostStopped(Host host, String reason);
}

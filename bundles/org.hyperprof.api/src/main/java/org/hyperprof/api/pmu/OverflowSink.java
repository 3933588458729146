package org.hyperprof.api.pmu;

import org.osgi.annotation.versioning.ConsumerType;

/** Receives the counters a PMU interrupt handler found overflowed. Called on the sampling path: no allocation. */
@ConsumerType
@FunctionalInterface
public interface OverflowSink {
    /** Counter {@code counter} overflowed; the model has already re-armed it. */
    void overflow(int counter);
}

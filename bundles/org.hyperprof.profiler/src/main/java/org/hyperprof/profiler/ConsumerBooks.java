package org.hyperprof.profiler;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.sample.ConsumerAccounting;

/**
 * What one consumer received and missed in one session. Updated from the sampling thread (a full
 * queue, a departed consumer) and from the consumer's own delivery thread.
 */
final class ConsumerBooks {
    final String name;
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong missed = new AtomicLong();
    private final AtomicReference<String> problem = new AtomicReference<>();

    ConsumerBooks(String name) {
        this.name = name;
    }

    void receive(int samples) {
        received.addAndGet(samples);
    }

    void miss(long samples) {
        missed.addAndGet(samples);
    }

    /** Records a failure; only the first one is kept. */
    void problem(String text) {
        problem.compareAndSet(null, text);
    }

    long received() {
        return received.get();
    }

    long missed() {
        return missed.get();
    }

    ConsumerAccounting accounting() {
        return new ConsumerAccounting(name, received.get(), missed.get(), problem.get());
    }
}

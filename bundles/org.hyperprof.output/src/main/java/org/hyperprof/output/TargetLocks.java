package org.hyperprof.output;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.hyperprof.api.output.OutputException;

/**
 * One lock per target being written, so that two writes to a target never interleave: the second
 * waits until the first has closed it. Entries live only while someone holds or waits for them.
 */
final class TargetLocks {

    /** A held target; closing it lets the next writer in. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }

    /** Guarded by itself. */
    private final Map<Object, Entry> entries = new HashMap<>();

    /** Told when a writer finds its target busy and is about to wait (a hook for tests). */
    private final Consumer<Path> waiting;

    TargetLocks(Consumer<Path> waiting) {
        this.waiting = waiting;
    }

    /**
     * Takes the target, waiting while another write holds it.
     *
     * @throws OutputException when interrupted while waiting (the interrupt stays set), or when this
     *                         thread already writes the target (it would wait for itself)
     */
    Held acquire(Target target) throws OutputException {
        Object key = target.lockKey();
        Entry entry;
        synchronized (entries) {
            entry = entries.computeIfAbsent(key, k -> new Entry());
            entry.users++;
        }
        boolean held = false;
        try {
            if (entry.lock.isHeldByCurrentThread()) {
                throw new OutputException(target.given(), "cannot write " + target.named()
                        + ": this thread is writing it already");
            }
            if (!entry.lock.tryLock()) {
                waiting.accept(target.file());
                entry.lock.lockInterruptibly();
            }
            held = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutputException(target.given(), "interrupted while waiting for another write to "
                    + target.named() + " to end; nothing was written", e);
        } finally {
            if (!held) {
                leave(key, entry);
            }
        }
        return () -> {
            entry.lock.unlock();
            leave(key, entry);
        };
    }

    private void leave(Object key, Entry entry) {
        synchronized (entries) {
            if (--entry.users == 0) {
                entries.remove(key);
            }
        }
    }

    /** Targets held or waited for right now. */
    int busy() {
        synchronized (entries) {
            return entries.size();
        }
    }
}

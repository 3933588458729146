package org.hyperprof.api.sample;

/**
 * What one consumer got of one session: received + missed = the samples the session handed to its
 * consumers, whenever this one came or went.
 *
 * @param consumer the consumer's {@code consumer.name}
 * @param received samples handed to it
 * @param missed   samples it missed: it was too slow (its queue was full, or a batch was still queued
 *                 or in its hands when the session ended), it threw, it left, or it arrived after
 *                 they were handed over
 * @param problem  the first failure it had, or null
 */
public record ConsumerAccounting(String consumer, long received, long missed, String problem) {
}

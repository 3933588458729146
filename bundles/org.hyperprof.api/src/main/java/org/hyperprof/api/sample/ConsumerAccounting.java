package org.hyperprof.api.sample;

/**
 * What one consumer got.
 *
 * @param consumer the consumer's {@code consumer.name}
 * @param received samples handed to it
 * @param missed   samples it missed: it was too slow (its queue was full), it threw, or it left
 * @param problem  the first failure it had, or null
 */
public record ConsumerAccounting(String consumer, long received, long missed, String problem) {
}

package org.hyperprof.pipeline;

/**
 * How batches reach a consumer, from its {@code consumer.delivery} service property
 * ({@link org.hyperprof.api.sample.SampleConsumer#DELIVERY}).
 */
public enum Delivery {
    /** Its own thread behind a bounded queue; a full queue counts the batch as missed. The default. */
    QUEUED,
    /**
     * As {@link #QUEUED}, but a full queue makes a source that can wait (the simulator, a file
     * import) wait instead of counting samples as missed; only a live recording may still miss, and
     * that is counted.
     */
    LOSSLESS,
    /**
     * Called on the source's thread while it publishes, with no queue: for a consumer as fast as
     * the source (a report built as the samples come). It slows the source by its own time.
     */
    TAP;

    /** The delivery a consumer's service property asks for; null or blank is {@link #QUEUED}. */
    public static Delivery of(Object property) {
        if (property == null || property.toString().isBlank()) {
            return QUEUED;
        }
        for (Delivery d : values()) {
            if (d.name().equalsIgnoreCase(property.toString().trim())) {
                return d;
            }
        }
        throw new IllegalArgumentException("consumer.delivery is '" + property + "'; expected queued, lossless or tap");
    }
}

package org.hyperprof.profiler;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * What a user may tune in the profiler, through Configuration Admin (PID
 * {@value ProfilerImpl#PID}). A change applies from the next session (the queue capacity from the
 * next batch); the profiler and a running session go on.
 */
@ObjectClassDefinition(name = "Hyperprof profiler",
        description = "How the daemons hand samples to the sample consumers.")
public @interface ProfilerConfiguration {

    @AttributeDefinition(name = "Batch size", min = "1",
            description = "Samples per batch handed to the consumers. Larger batches cost fewer hand-overs;"
                    + " smaller ones let a consumer see samples sooner.")
    int batch_size() default ProfilerImpl.DEFAULT_BATCH_SIZE;

    @AttributeDefinition(name = "Consumer queue (batches)", min = "1",
            description = "Batches each consumer's queue holds; when a slow consumer's queue is full, the"
                    + " next batch is counted as missed for it alone and sampling goes on.")
    int consumer_queue_batches() default ProfilerImpl.DEFAULT_QUEUE_CAPACITY;

    @AttributeDefinition(name = "Session end wait (seconds)", min = "0",
            description = "How long the end of a session waits for consumers to take what is queued for"
                    + " them; what is still queued then is counted as missed.")
    int session_end_timeout_seconds() default 10;
}

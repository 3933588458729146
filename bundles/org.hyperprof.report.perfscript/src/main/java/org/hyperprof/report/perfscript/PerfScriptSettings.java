package org.hyperprof.report.perfscript;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * How much of each session the perf script writer keeps: every sample is kept in memory (about 60
 * bytes, and 16 per call-chain frame), so a ceiling keeps a long recording from filling the heap.
 * Past it the export refuses, saying which setting to raise.
 */
@ObjectClassDefinition(name = "Hyperprof perf script export",
        description = "Keeps every sample of the last sessions, in order with its time and call chain, for"
                + " hp:export perfscript (the text of perf script, which Firefox Profiler and hotspot import).")
public @interface PerfScriptSettings {

    @AttributeDefinition(name = "Samples kept per session",
            description = "Past this many samples a session keeps no more, and its export is refused (about 60"
                    + " bytes each).", min = "1")
    long maxSamples() default PerfScriptConsumer.DEFAULT_MAX_SAMPLES;

    @AttributeDefinition(name = "Call-chain frames kept per session",
            description = "Past this many call-chain frames a session keeps no more samples, and its export is"
                    + " refused (16 bytes each).", min = "0")
    long maxFrames() default PerfScriptConsumer.DEFAULT_MAX_FRAMES;

    @AttributeDefinition(name = "Sessions kept",
            description = "The last this many sessions can be exported; a new one drops the oldest.", min = "1")
    int retainedSessions() default PerfScriptConsumer.DEFAULT_RETAINED_SESSIONS;
}

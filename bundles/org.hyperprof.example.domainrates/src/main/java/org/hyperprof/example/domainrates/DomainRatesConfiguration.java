package org.hyperprof.example.domainrates;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The example consumer's settings, kept by Configuration Admin under the PID
 * {@value DomainRatesConsumer#PID} and described to tools by Metatype (bnd turns this annotation
 * into {@code OSGI-INF/metatype/*.xml} at build time).
 *
 * <p>Method names become property names: {@code output_path()} is the property
 * {@code output.path} (an underscore reads as a dot), {@code echo()} is {@code echo}. Without any
 * configuration the defaults below apply, so the consumer works the moment it is installed.
 */
@ObjectClassDefinition(name = "Hyperprof example: domain rates",
        description = "Streams per-domain sample counts, shares and rates of every profiling session as CSV.")
public @interface DomainRatesConfiguration {

    @AttributeDefinition(name = "CSV file",
            description = "The file the lines are appended to (created with a header line if absent; its folder"
                    + " must exist). A symbolic link is followed; a FIFO or /dev/stdout is streamed into."
                    + " Empty: hyperprof-domain-rates.csv in the JVM's temporary directory (java.io.tmpdir).")
    String output_path() default "";

    @AttributeDefinition(name = "Echo to the console",
            description = "Also print every CSV line on standard output (the shell's console).")
    boolean echo() default false;
}

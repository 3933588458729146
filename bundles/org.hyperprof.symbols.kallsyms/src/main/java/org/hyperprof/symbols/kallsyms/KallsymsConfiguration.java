package org.hyperprof.symbols.kallsyms;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** What a user may tune in the kallsyms resolver, through Configuration Admin (PID {@value KallsymsResolver#PID}). */
@ObjectClassDefinition(name = "Hyperprof kallsyms symbol resolver",
        description = "How much of a System.map, nm or /proc/kallsyms file the resolver reads.")
public @interface KallsymsConfiguration {

    @AttributeDefinition(name = "File ceiling (MiB)", min = "1",
            description = "The most one symbol file may hold; a larger one is refused with a clear error instead"
                    + " of filling the memory. A distribution kernel's /proc/kallsyms is 10-20 MiB.")
    long max_file_mb() default KallsymsResolver.DEFAULT_MAX_FILE_MB;
}

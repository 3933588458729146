package org.hyperprof.symbols.elf;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** What a user may tune in the ELF resolver, through Configuration Admin (PID {@value ElfResolver#PID}). */
@ObjectClassDefinition(name = "Hyperprof ELF symbol resolver",
        description = "How much of an ELF image the resolver reads.")
public @interface ElfConfiguration {

    @AttributeDefinition(name = "Read ceiling (MiB)", min = "1",
            description = "The most the resolver reads of one image. From a file it reads only the headers, the"
                    + " symbol and string tables and the notes (a few MiB of a 600 MiB vmlinux with debug"
                    + " information); an image that comes as a stream is read whole. Past the ceiling the image"
                    + " is refused with a clear error instead of filling the memory.")
    long max_read_mb() default ElfResolver.DEFAULT_MAX_READ_MB;
}

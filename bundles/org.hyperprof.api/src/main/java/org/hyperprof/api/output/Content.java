package org.hyperprof.api.output;

import java.io.IOException;
import java.io.OutputStream;

/**
 * What goes into an output: writes its bytes to the stream {@link OutputFiles} opened on the
 * target. Everything that can be refused (an unknown session, a bad format) is checked before a
 * content is handed over, because a FIFO or a device is already written to when this runs.
 */
@org.osgi.annotation.versioning.ConsumerType
@FunctionalInterface
public interface Content {
    /**
     * Writes the content. Closing {@code out} is allowed and does not close the target: OutputFiles
     * flushes, syncs and closes it.
     */
    void writeTo(OutputStream out) throws IOException;
}

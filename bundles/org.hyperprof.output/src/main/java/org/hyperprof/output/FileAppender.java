package org.hyperprof.output;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

import org.hyperprof.api.output.Appender;
import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputException;

/**
 * An open output that chunks are appended to, each under the target's lock. A regular file is cut
 * back to where a chunk began when the chunk fails part-way (a full disk), so it only ever holds
 * whole chunks.
 */
final class FileAppender implements Appender {
    private final Target target;
    private final WritableByteChannel channel;
    private final TargetLocks locks;
    private volatile boolean closed;

    FileAppender(Target target, WritableByteChannel channel, TargetLocks locks) {
        this.target = target;
        this.channel = channel;
        this.locks = locks;
    }

    @Override
    public Path file() {
        return target.file();
    }

    @Override
    public void append(Content chunk) throws OutputException {
        if (closed) {
            throw new OutputException(target.given(), "cannot append to " + target.named() + ": it was closed");
        }
        try (TargetLocks.Held held = locks.acquire(target)) {
            writeChunk(chunk);
        }
    }

    /** Writes one chunk; the caller holds the target. */
    void writeChunk(Content chunk) throws OutputException {
        FileChannel file = channel instanceof FileChannel f && !target.kind().streamed() ? f : null;
        long start = -1;
        Streams.Counter counter = new Streams.Counter(channel);
        try {
            if (file != null) {
                start = file.size();
            }
            Streams.pour(chunk, counter, OutputFilesComponent.CHUNK_BUFFER);
        } catch (IOException e) {
            String after = "";
            if (file != null && start >= 0) {
                // A failing write may have put part of its bytes in before it failed: count by size.
                try {
                    if (file.size() > start) {
                        file.truncate(start);
                        after = "; the part written was removed, the file holds only whole chunks";
                    }
                } catch (IOException again) {
                    after = "; part of it may stay at the end: " + Failures.reason(again);
                }
            } else if (counter.bytes > 0) {
                after = " after " + counter.bytes + " bytes of it";
            }
            throw new OutputException(target.given(), "could not append to the " + target.kind().noun + " "
                    + target.named() + ": " + Failures.reason(e) + after, e);
        }
    }

    /** Ends a wait on a slow reader too: closing the channel wakes a write blocked in it. */
    @Override
    public void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            // Every chunk was flushed when written: nothing is lost, and there is no one to tell.
        }
    }

    @Override
    public String toString() {
        return "appender to " + target.named() + (closed ? " (closed)" : "");
    }
}

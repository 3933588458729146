package org.hyperprof.output;

import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;

import org.hyperprof.api.output.Content;

/** How a {@link Content} reaches a channel: buffered, counted, and never closing the channel itself. */
final class Streams {
    private Streams() {
    }

    /** The channel as a stream that counts the bytes it took; closing it leaves the channel open. */
    static final class Counter extends OutputStream {
        private final OutputStream channel;
        long bytes;

        Counter(WritableByteChannel channel) {
            this.channel = Channels.newOutputStream(channel);
        }

        @Override
        public void write(int b) throws IOException {
            channel.write(b);
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            channel.write(b, off, len);
            bytes += len;
        }

        @Override
        public void close() {
            // The channel is its owner's to close.
        }
    }

    /** Has {@code content} write through a buffer into {@code counter} and pushes out what is buffered. */
    static void pour(Content content, Counter counter, int buffer) throws IOException {
        BufferedOutputStream buffered = new BufferedOutputStream(counter, buffer);
        content.writeTo(new FilterOutputStream(buffered) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                // A content may close its stream (try-with-resources, GZIPOutputStream): that only flushes.
                flush();
            }
        });
        buffered.flush();
    }
}

package org.hyperprof.output;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;

/**
 * This process's standard output or error as a channel that writes through the open descriptor
 * (sharing its file offset with everything else the process prints) and never closes it.
 */
final class OwnStream implements WritableByteChannel {
    private final FileOutputStream out;
    private volatile boolean open = true;

    /**
     * @param out a stream on {@link FileDescriptor#out} or {@link FileDescriptor#err}, made once by
     *            the component and never closed (closing it would close the descriptor)
     */
    OwnStream(FileOutputStream out) {
        this.out = out;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        int n = src.remaining();
        if (src.hasArray()) {
            out.write(src.array(), src.arrayOffset() + src.position(), n);
            src.position(src.limit());
        } else {
            byte[] copy = new byte[n];
            src.get(copy);
            out.write(copy);
        }
        return n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Ends this channel only; the descriptor stays open for the rest of the process. */
    @Override
    public void close() {
        open = false;
    }
}

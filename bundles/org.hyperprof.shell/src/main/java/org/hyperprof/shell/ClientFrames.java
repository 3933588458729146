package org.hyperprof.shell;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The resident framework's conversation with one {@code launch/hyperprof} client, in frames of a
 * type byte, a big-endian 32-bit length and that many bytes. The client sends its working folder
 * ({@code D}), {@code --keep-going} ({@code K}, "1" or "0"), its command lines ({@code L}) and then
 * {@code G} to run them, or {@code X} alone to stop the server; during the run {@code S} passes on
 * a signal ("INT" or "TERM"). The server sends its identity first ({@code V}), then what the run
 * prints ({@code O} stdout, {@code E} stderr) and last the exit status ({@code Q}, in decimal),
 * after which it sends nothing more. The client's end of the connection is a SIGTERM.
 */
final class ClientFrames implements AutoCloseable {
    static final byte IDENTITY = 'V';
    static final byte STDOUT = 'O';
    static final byte STDERR = 'E';
    static final byte STATUS = 'Q';
    private static final int MAX_FRAME = 64 << 20;

    /** What the client asked for: a run, or the server's stop. */
    /** What a client asked: its working folder and environment, the lines, or that the server stop. */
    record Request(Path workingDir, Map<String, String> environment, boolean keepGoing, byte[] lines,
            boolean stopServer) {
    }

    private final SocketChannel channel;
    private final ByteBuffer header = ByteBuffer.allocate(5);
    /** Guarded by this: once the status is sent, nothing more is. */
    private boolean finished;

    ClientFrames(SocketChannel channel) {
        this.channel = channel;
    }

    /** Reads the client's request; null when it left without one. */
    Request request() throws IOException {
        Path dir = null;
        Map<String, String> environment = null;
        boolean keepGoing = false;
        byte[] lines = new byte[0];
        Charset cs = Charset.defaultCharset();
        while (true) {
            Frame f = read();
            if (f == null) {
                return null;
            }
            switch (f.type) {
                case 'D' -> dir = Path.of(new String(f.body, cs));
                case 'N' -> environment = environment(new String(f.body, cs));
                case 'K' -> keepGoing = new String(f.body, StandardCharsets.US_ASCII).equals("1");
                case 'L' -> lines = f.body;
                case 'G' -> {
                    return new Request(dir, environment, keepGoing, lines, false);
                }
                case 'X' -> {
                    return new Request(null, null, false, lines, true);
                }
                default -> throw new IOException("unknown frame type " + (char) f.type);
            }
        }
    }

    /** NAME=value entries separated by NUL, as the client sends its environment. */
    static Map<String, String> environment(String entries) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String entry : entries.split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return Map.copyOf(env);
    }

    /**
     * Passes the client's signals on to {@code signal} ("INT" or "TERM") from a thread of their
     * own until the connection ends; a client that leaves before its status is a SIGTERM.
     */
    void onSignals(Consumer<String> signal) {
        Thread t = new Thread(() -> {
            try {
                for (Frame f = read(); f != null; f = read()) {
                    if (f.type == 'S') {
                        signal.accept(new String(f.body, StandardCharsets.US_ASCII));
                    }
                }
            } catch (IOException e) {
                // The connection broke: as if the client had left.
            }
            if (!finished()) {
                signal.accept("TERM");
            }
        }, "hyperprof resident signals");
        t.setDaemon(true);
        t.start();
    }

    synchronized boolean finished() {
        return finished;
    }

    /** Sends the exit status, once; what the run prints after it is dropped. */
    synchronized void finish(int status) {
        if (!finished) {
            send(STATUS, Integer.toString(status).getBytes(StandardCharsets.US_ASCII));
            finished = true;
        }
    }

    void send(byte type, String text) {
        send(type, text.getBytes(StandardCharsets.UTF_8));
    }

    /** One frame; dropped once the status is sent or the client has gone. */
    synchronized void send(byte type, byte[] body) {
        send(type, body, 0, body.length);
    }

    private synchronized void send(byte type, byte[] body, int off, int len) {
        if (finished) {
            return;
        }
        ByteBuffer[] frame = {ByteBuffer.allocate(5).put(type).putInt(len).flip(), ByteBuffer.wrap(body, off, len)};
        try {
            while (frame[1].hasRemaining() || frame[0].hasRemaining()) {
                channel.write(frame);
            }
        } catch (IOException gone) {
            // The client has gone: its signal thread stops the run.
        }
    }

    /** A stream of frames of one type: the run's stdout or stderr. */
    OutputStream stream(byte type) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                send(type, new byte[] {(byte) b});
            }

            @Override
            public void write(byte[] b, int off, int len) {
                send(type, b, off, len);
            }
        };
    }

    private record Frame(byte type, byte[] body) {
    }

    /** The next frame, or null at the end of the connection; only one thread reads at a time. */
    private Frame read() throws IOException {
        header.clear();
        if (!fill(header)) {
            return null;
        }
        header.flip();
        byte type = header.get();
        int length = header.getInt();
        if (length < 0 || length > MAX_FRAME) {
            throw new IOException("a frame of " + length + " bytes");
        }
        ByteBuffer body = ByteBuffer.allocate(length);
        if (!fill(body)) {
            throw new EOFException("the connection ended inside a frame");
        }
        return new Frame(type, body.array());
    }

    /** Fills {@code b}; false when the connection ended before its first byte. */
    private boolean fill(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                if (b.position() == 0) {
                    return false;
                }
                throw new EOFException("the connection ended inside a frame");
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

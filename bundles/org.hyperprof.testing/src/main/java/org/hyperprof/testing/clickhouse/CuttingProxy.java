package org.hyperprof.testing.clickhouse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback TCP proxy in front of a server that forwards every byte both ways, except where a test armed
 * it: for the next request that carries a marker (the text of its request line, say the URL-encoded
 * {@code hyperprof.sessions+FORMAT}) it either lets the request through whole and drops the server's
 * reply (the server committed; the client never hears), or holds the reply back until the test releases
 * it (a slow shipment), or passes only so many bytes of it and cuts both connections (an insert cut in
 * the middle). Each rule fires once.
 */
public final class CuttingProxy implements AutoCloseable {
    private record Rule(String marker, long cutAfterBytes) {
    }

    /** {@link Rule#cutAfterBytes} of a rule that drops the reply. */
    private static final long DROP_REPLY = -1;
    /** {@link Rule#cutAfterBytes} of a rule that holds the reply until {@link #release()}. */
    private static final long HOLD_REPLY = -2;
    private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);

    private final ServerSocket listener;
    private final int target;
    private final AtomicReference<Rule> armed = new AtomicReference<>();
    private final AtomicInteger fired = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;

    public CuttingProxy(int targetPort) {
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.target = targetPort;
        this.acceptor = new Thread(this::accept, "cutting-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String http() {
        return "http://127.0.0.1:" + port();
    }

    /** The next request with {@code marker} reaches the server whole; its reply is dropped. */
    public void dropReplyTo(String marker) {
        armed.set(new Rule(marker, DROP_REPLY));
    }

    /** The next request with {@code marker} reaches the server whole; its reply waits for {@link #release()}. */
    public void holdReplyTo(String marker) {
        armed.set(new Rule(marker, HOLD_REPLY));
    }

    /** Lets a held reply go on to the client. */
    public void release() {
        released.countDown();
    }

    /** The next request with {@code marker} reaches the server up to {@code bytes} past the marker, then is cut. */
    public void cutRequest(String marker, long bytes) {
        armed.set(new Rule(marker, bytes));
    }

    /** How many rules fired. */
    public int fired() {
        return fired.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(server);
                }
                Connection c = new Connection(client, server);
                start(c::requests);
                start(c::replies);
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "cutting-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private final class Connection {
        private final Socket client;
        private final Socket server;
        private volatile boolean dropReply;
        private volatile boolean holdReply;

        Connection(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void requests() {
            byte[] b = new byte[8192];
            String recent = "";
            long left = -1;
            try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
                int n;
                while ((n = in.read(b)) > 0) {
                    if (left >= 0) {
                        int pass = (int) Math.min(n, left);
                        out.write(b, 0, pass);
                        out.flush();
                        left -= pass;
                        pace();
                        if (left == 0) {
                            cut();
                            return;
                        }
                        continue;
                    }
                    String text = recent + new String(b, 0, n, StandardCharsets.ISO_8859_1);
                    Rule r = armed.get();
                    int at = r == null ? -1 : text.indexOf(r.marker());
                    if (at >= 0 && armed.compareAndSet(r, null)) {
                        fired.incrementAndGet();
                        if (r.cutAfterBytes() == DROP_REPLY) {
                            dropReply = true;
                        } else if (r.cutAfterBytes() == HOLD_REPLY) {
                            holdReply = true;
                        } else {
                            int markerEnd = at + r.marker().length() - recent.length();
                            int pass = (int) Math.min(n, Math.max(0, markerEnd) + r.cutAfterBytes());
                            out.write(b, 0, pass);
                            out.flush();
                            left = Math.max(markerEnd, 0) + r.cutAfterBytes() - pass;
                            if (left <= 0) {
                                cut();
                                return;
                            }
                            continue;
                        }
                    }
                    out.write(b, 0, n);
                    out.flush();
                    recent = text.substring(Math.max(0, text.length() - 200));
                }
            } catch (IOException e) {
                // One side went: so does the other.
            }
            cut();
        }

        void replies() {
            byte[] b = new byte[8192];
            try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(b)) > 0) {
                    if (dropReply) {
                        cut(); // the server answered, so it committed; the client never hears it
                        return;
                    }
                    if (holdReply) {
                        released.await();
                    }
                    out.write(b, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // One side went: so does the other.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cut();
        }

        /**
         * A request being cut arrives at a network's pace, so that the server has parsed and written part
         * of it when the cut comes (all of it at once, a server reads on until the cut and writes none).
         */
        private void pace() {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void cut() {
            try {
                client.close();
            } catch (IOException e) {
                // closed already
            }
            try {
                server.close();
            } catch (IOException e) {
                // closed already
            }
        }
    }

    @Override
    public void close() {
        released.countDown();
        try {
            listener.close();
        } catch (IOException e) {
            // closed already
        }
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closed already
                }
            }
        }
    }
}

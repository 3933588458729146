package org.hyperprof.shell;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.CommandProcessor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The resident framework ({@code hyperprof.shell.mode=resident}): {@code launch/hyperprof} starts
 * it on first use and then hands it its command lines over a Unix domain socket, so a command
 * costs a connection instead of a JVM and a framework start. Each connection is one piped run
 * ({@link PipedSession}, in a Gogo session of its own) with the client's working directory, its
 * stdout, stderr and exit status relayed as {@link ClientFrames}, and Ctrl-C or SIGTERM passed on
 * to {@link CommandLineStops} as the client's own. The socket (mode 0600) is served only from a
 * folder of this user's with mode 0700; the server leaves after an idle time, or when a client
 * asks it to (a stop request, or a changed build: the client compares the identity the server
 * reports first).
 */
@Component(immediate = true, service = {})
public final class ResidentServer {
    /** Framework (or system) property: the socket's path. */
    public static final String SOCKET_PROPERTY = "hyperprof.resident.socket";
    /** Framework (or system) property: the launcher jar whose size and time identify the build. */
    public static final String JAR_PROPERTY = "hyperprof.resident.jar";
    /** Framework (or system) property: the JVM options the server was started with, part of its identity. */
    public static final String OPTIONS_PROPERTY = "hyperprof.resident.options";
    /** Framework (or system) property: seconds without a client after which the server leaves (900). */
    public static final String IDLE_PROPERTY = "hyperprof.resident.idle.seconds";
    static final String MODE = "resident";
    private static final long DEFAULT_IDLE_SECONDS = 900;

    private final ServiceRegistration<?> main;
    private final Listener listener;

    @Activate
    public ResidentServer(BundleContext context, @Reference CommandProcessor processor,
            @Reference CommandLineStops stops) {
        if (!MODE.equals(context.getProperty(CommandLineStops.MODE_PROPERTY))) {
            main = null;
            listener = null;
            return;
        }
        Path socket = Path.of(Objects.requireNonNull(context.getProperty(SOCKET_PROPERTY), SOCKET_PROPERTY));
        String identity = identity(context.getProperty(JAR_PROPERTY), context.getProperty(OPTIONS_PROPERTY));
        String idle = context.getProperty(IDLE_PROPERTY);
        long idleSeconds = idle == null || idle.isBlank() ? DEFAULT_IDLE_SECONDS : Long.parseLong(idle.strip());
        listener = new Listener(socket, TimeUnit.SECONDS.toMillis(idleSeconds));
        main = LauncherMain.register(context, new Serving(listener, identity, processor, stops));
    }

    @Deactivate
    void deactivate() {
        LauncherMain.unregister(main);
        if (listener != null) {
            // The framework is stopping (stop 0 in a client's lines): no more clients.
            listener.stop();
        }
    }

    /** The build (the launcher jar's size and modification time) and the JVM options, as the client computes them. */
    static String identity(String jar, String options) {
        String build;
        try {
            Path p = Path.of(Objects.requireNonNull(jar, JAR_PROPERTY));
            build = Files.size(p) + ":" + Files.getLastModifiedTime(p).toMillis();
        } catch (IOException | RuntimeException e) {
            build = "unknown";
        }
        return build + " " + (options == null ? "" : options.strip());
    }

    /** The main thread: accepts clients until stopped or idle, each on a thread of its own. */
    private record Serving(Listener listener, String identity, CommandProcessor processor, CommandLineStops stops)
            implements Callable<Integer> {
        @Override
        public Integer call() throws IOException, InterruptedException {
            try (ServerSocketChannel server = listener.open()) {
                for (SocketChannel client = next(server); client != null; client = next(server)) {
                    SocketChannel c = client;
                    Thread t = new Thread(() -> serve(c), "hyperprof resident client");
                    t.setDaemon(true);
                    t.start();
                }
            }
            listener.awaitClients();
            return 0;
        }

        /** The next client, counted; null once the server has stopped listening. */
        private SocketChannel next(ServerSocketChannel server) throws IOException {
            try {
                SocketChannel client = server.accept();
                listener.started();
                return client;
            } catch (ClosedChannelException stopped) {
                return null;
            }
        }

        private void serve(SocketChannel channel) {
            try (ClientFrames frames = new ClientFrames(channel)) {
                frames.send(ClientFrames.IDENTITY, identity);
                ClientFrames.Request request = frames.request();
                if (request == null) {
                    return;
                }
                if (request.stopServer()) {
                    listener.stop();
                    frames.finish(0);
                    return;
                }
                run(frames, request);
            } catch (IOException gone) {
                // The client went away before its run began: nothing was started for it.
            } finally {
                listener.ended();
            }
        }

        private void run(ClientFrames frames, ClientFrames.Request request) {
            Charset cs = Charset.defaultCharset();
            PrintStream out = new PrintStream(new BufferedOutputStream(frames.stream(ClientFrames.STDOUT)), true, cs);
            PrintStream err = new PrintStream(new BufferedOutputStream(frames.stream(ClientFrames.STDERR)), true, cs);
            CommandLineStops own = CommandLineStops.forClient(status -> {
                out.flush();
                err.flush();
                frames.finish(status);
            }, err);
            frames.onSignals(name -> own.request(name.equals("TERM") ? CommandLineStops.Request.SIGTERM
                    : CommandLineStops.Request.CTRL_C));
            int status = stops.runFor(own, () -> PipedSession.run(processor,
                    new ByteArrayInputStream(request.lines()), out, err, request.keepGoing(),
                    new PipedSession.Client(request.workingDir(), request.environment()), frames::finished));
            out.flush();
            err.flush();
            frames.finish(status);
        }
    }

    /** The socket, its folder's rules, and when the server leaves. */
    static final class Listener {
        private final Path socket;
        private final long idleMillis;
        /** Guarded by this. */
        private ServerSocketChannel server;
        private Object socketKey;
        private int clients;
        private long idleSince = System.nanoTime();
        private boolean stopping;

        Listener(Path socket, long idleMillis) {
            this.socket = socket;
            this.idleMillis = idleMillis;
        }

        /** Binds the socket in a folder of this user's that no one else may enter, with mode 0600. */
        synchronized ServerSocketChannel open() throws IOException {
            Path folder = socket.toAbsolutePath().getParent();
            // A socket left by a server that died: the client starts a server only when none answers.
            Files.deleteIfExists(socket);
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            PosixFileAttributes own = Files.readAttributes(socket, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            PosixFileAttributes dir = Files.readAttributes(folder, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            socketKey = own.fileKey();
            if (!dir.isDirectory() || !dir.owner().equals(own.owner())
                    || !PosixFilePermissions.toString(dir.permissions()).equals("rwx------")) {
                close();
                throw new IOException("refusing to serve in " + folder + ": it must be a folder of "
                        + own.owner().getName() + "'s with mode 0700");
            }
            Thread watch = new Thread(this::closeWhenDone, "hyperprof resident idle watch");
            watch.setDaemon(true);
            watch.start();
            return server;
        }

        synchronized void started() {
            clients++;
        }

        synchronized void ended() {
            clients--;
            idleSince = System.nanoTime();
            notifyAll();
        }

        synchronized void stop() {
            stopping = true;
            notifyAll();
        }

        /** Waits for the runs still going on when the server stopped listening. */
        synchronized void awaitClients() throws InterruptedException {
            while (clients > 0) {
                wait();
            }
        }

        private synchronized void closeWhenDone() {
            try {
                while (!stopping) {
                    long left = idleMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSince);
                    if (clients == 0 && left <= 0) {
                        break;
                    }
                    wait(clients > 0 ? 0 : left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            close();
        }

        /**
         * The socket goes first, so that a client that finds none starts a new server, whose socket
         * this one must then not remove (it removes only its own file).
         */
        private synchronized void close() {
            try {
                if (socketKey != null && socketKey.equals(Files.readAttributes(socket, PosixFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS).fileKey())) {
                    Files.delete(socket);
                }
            } catch (IOException e) {
                // Gone already.
            }
            try {
                server.close();
            } catch (IOException e) {
                // Closed already.
            }
        }
    }
}

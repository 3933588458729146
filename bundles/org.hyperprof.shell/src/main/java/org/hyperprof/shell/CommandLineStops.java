package org.hyperprof.shell;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import org.hyperprof.api.host.StopRequests;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Ctrl-C and SIGTERM at the command line. They stop the long run that is going on (hp:run,
 * hp:profile, hp:study, which watch for them) at its next step; the command then ends its session
 * as usual and prints its books with the samples taken. After that a piped session exits, 130
 * after Ctrl-C (SIGINT) and 143 after SIGTERM, as a shell reports a process those signals ended;
 * at an interactive prompt Ctrl-C only stops the run and the prompt comes back, while SIGTERM ends
 * the process there too. With no run going on a piped session and SIGTERM exit at once, and
 * Ctrl-C at the prompt says how to leave. Requests that come while a run is already stopping
 * change nothing: a terminal's Ctrl-C reaches both the launcher script and the JVM, and the
 * script passes its signals on.
 */
@Component(service = {StopRequests.class, CommandLineStops.class}, immediate = true)
public final class CommandLineStops implements StopRequests {
    /**
     * Framework (or system) property: {@code interactive} (a prompt: Ctrl-C returns to it) or
     * {@code batch} (piped command lines: Ctrl-C ends the process). The launcher sets it; without
     * it a process with a console is interactive.
     */
    public static final String MODE_PROPERTY = "hyperprof.shell.mode";

    /** How the command lines reach the shell. */
    enum Mode {
        INTERACTIVE, BATCH;

        static Mode of(String property, boolean console) {
            if (property == null || property.isBlank()) {
                return console ? INTERACTIVE : BATCH;
            }
            return property.strip().toLowerCase(Locale.ROOT).equals("interactive") ? INTERACTIVE : BATCH;
        }
    }

    /** The signals handled, with the name the user knows them by and the status they exit with. */
    enum Request {
        CTRL_C("INT", "Ctrl-C", 130), SIGTERM("TERM", "SIGTERM", 143);

        final String signal;
        final String label;
        final int status;

        Request(String signal, String label, int status) {
            this.signal = signal;
            this.label = label;
            this.status = status;
        }
    }

    private final Mode mode;
    /** Ends the process with a status once the output is flushed; a test records it instead. */
    private final IntConsumer exit;
    /** Where notices go: the process's error stream, the signal's thread belongs to no session. */
    private final Supplier<PrintStream> notices;
    /** The handlers this component replaced, restored when it leaves. */
    private final Map<Request, Object> replaced = new EnumMap<>(Request.class);

    /**
     * The stop requests of the resident client whose command lines this thread runs (and the
     * threads it starts: its Gogo session's); unset for the process's own command lines.
     */
    private final InheritableThreadLocal<CommandLineStops> client = new InheritableThreadLocal<>();

    /** Guarded by this. */
    private final Set<OpenWatch> open = new LinkedHashSet<>();
    /** Guarded by this: the request that ends the process once the stopped runs have closed; null while none. */
    private Request ending;

    @Activate
    public CommandLineStops(BundleContext context) {
        this(Mode.of(context.getProperty(MODE_PROPERTY), System.console() != null), CommandLineStops::exitProcess,
                () -> System.err);
        install();
    }

    CommandLineStops(Mode mode, IntConsumer exit, Supplier<PrintStream> notices) {
        this.mode = mode;
        this.exit = exit;
        this.notices = notices;
    }

    /**
     * A resident framework's client: its own stop requests, which it ends with {@code exit} instead
     * of the process and announces on {@code notices} (its stderr); no signal handlers.
     */
    static CommandLineStops forClient(IntConsumer exit, PrintStream notices) {
        return new CommandLineStops(Mode.BATCH, exit, () -> notices);
    }

    /** Runs {@code lines} with the commands it starts watched by {@code clientStops} rather than by this process. */
    int runFor(CommandLineStops clientStops, IntSupplier lines) {
        client.set(clientStops);
        try {
            return lines.getAsInt();
        } finally {
            client.remove();
        }
    }

    @Override
    public Watch watch(String command) {
        CommandLineStops clientStops = client.get();
        if (clientStops != null) {
            return clientStops.watch(command);
        }
        OpenWatch w = new OpenWatch(command);
        synchronized (this) {
            // A command that starts while the process is on its way out is stopped from its start.
            w.reason = ending == null ? null : ending.label;
            open.add(w);
        }
        return w;
    }

    /**
     * A signal came (or a resident client passed one on): stop what runs, and decide whether the
     * process (or the client's run) ends now, later or not at all.
     */
    void request(Request r) {
        boolean exitNow = false;
        String notice;
        synchronized (this) {
            if (ending != null) {
                return;
            }
            boolean ends = r == Request.SIGTERM || mode == Mode.BATCH;
            List<String> stopping = new ArrayList<>();
            boolean already = false;
            for (OpenWatch w : open) {
                if (w.reason == null) {
                    w.reason = r.label;
                    stopping.add(w.command);
                } else {
                    already = true;
                }
            }
            if (ends) {
                ending = r;
            }
            if (!stopping.isEmpty()) {
                notice = r.label + ": stopping " + String.join(", ", stopping) + " at its next step; the samples"
                        + " taken are kept and its books printed" + (ends ? ", then hyperprof exits (" + r.status + ")"
                                : "");
            } else if (already) {
                notice = r.label + ": the run is already stopping" + (ends ? "; hyperprof exits (" + r.status
                        + ") once its books are printed" : "");
            } else if (ends) {
                exitNow = true;
                notice = r.label + ": no run to stop; hyperprof exits (" + r.status + ")";
            } else {
                notice = r.label + " stops a running hp:run, hp:profile or hp:study, and none is running; leave the"
                        + " shell with Ctrl-D (end of input) or 'stop 0'";
            }
        }
        notices.get().println("hyperprof: " + notice);
        notices.get().flush();
        if (exitNow) {
            exit.accept(r.status);
        }
    }

    /** Signal handlers that turn SIGINT and SIGTERM into requests; the JVM's own are kept to restore. */
    private void install() {
        for (Request r : Request.values()) {
            try {
                Object previous = JvmSignals.handle(r.signal, () -> request(r));
                if (previous != null) {
                    replaced.put(r, previous);
                }
            } catch (IllegalArgumentException | LinkageError e) {
                notices.get().println("hyperprof: " + r.label + " cannot be handled here (" + e + "); it ends the"
                        + " process without printing the books of the run");
            }
        }
    }

    @Deactivate
    void deactivate() {
        for (Map.Entry<Request, Object> e : replaced.entrySet()) {
            try {
                JvmSignals.restore(e.getKey().signal, e.getValue());
            } catch (IllegalArgumentException | LinkageError ignored) {
                // The JVM is shutting its signal handling down: nothing to give back.
            }
        }
        replaced.clear();
    }

    private static void exitProcess(int status) {
        // The command's streams are those of its Gogo session on this thread: what it printed goes out first.
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** One command's watch. */
    private final class OpenWatch implements Watch {
        private final String command;
        /** Guarded by the enclosing component; read unlocked by the run at every step. */
        private volatile String reason;

        OpenWatch(String command) {
            this.command = command;
        }

        @Override
        public String stopReason() {
            return reason;
        }

        @Override
        public void close() {
            Request exitWith;
            synchronized (CommandLineStops.this) {
                if (!open.remove(this)) {
                    return;
                }
                exitWith = ending != null && open.isEmpty() ? ending : null;
            }
            if (exitWith != null) {
                exit.accept(exitWith.status);
            }
        }
    }
}

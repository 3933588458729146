package org.hyperprof.shell;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The launcher's piped mode ({@code launch/hyperprof 'cmd' ...}, {@code -f script.gogo}): reads one
 * command line per input line and runs each in one Gogo session, without banner or prompt. A
 * command fails when its call throws (hp: commands throw {@link CommandFailure} once they have
 * printed why); the run then stops, names the failed line on stderr and the process exits 1, or 2
 * for a usage error, unless {@code hyperprof.shell.keep-going} is set, in which case every line
 * runs and the first failure's status is the exit status. Ctrl-C and SIGTERM stay with
 * {@link CommandLineStops}. Runs only when the launcher asks for it ({@code hyperprof.shell.mode=batch}),
 * never in a framework that merely has no console (a test container).
 */
@Component(immediate = true, service = {})
public final class PipedSession {
    /** A resident framework's client: its working folder and environment (null when it sent none). */
    record Client(Path workingDir, Map<String, String> environment) {
    }

    /** Framework (or system) property: run every line even after a failure ({@code true}). */
    public static final String KEEP_GOING_PROPERTY = "hyperprof.shell.keep-going";

    private final ServiceRegistration<?> main;

    @Activate
    public PipedSession(BundleContext context, @Reference CommandProcessor processor) {
        if (!"batch".equals(context.getProperty(CommandLineStops.MODE_PROPERTY))) {
            main = null;
            return;
        }
        boolean keepGoing = Boolean.parseBoolean(context.getProperty(KEEP_GOING_PROPERTY));
        main = LauncherMain.register(context, new MainThread(processor, keepGoing));
    }

    /** The launcher checks that {@code call} is declared to return Integer: a lambda's returns Object. */
    private record MainThread(CommandProcessor processor, boolean keepGoing) implements Callable<Integer> {
        @Override
        public Integer call() {
            return run(processor, new FileInputStream(FileDescriptor.in),
                    new PrintStream(new FileOutputStream(FileDescriptor.out), true, Charset.defaultCharset()),
                    new PrintStream(new FileOutputStream(FileDescriptor.err), true, Charset.defaultCharset()),
                    keepGoing);
        }
    }

    @Deactivate
    void deactivate() {
        LauncherMain.unregister(main);
    }

    /**
     * Runs the command lines of {@code lines} in a new session of {@code processor}; blank lines and
     * lines starting with {@code #} are skipped.
     *
     * @return the exit status: 0 when every line ran, else the first failure's (1, or 2 for usage)
     */
    static int run(CommandProcessor processor, InputStream lines, PrintStream out, PrintStream err,
            boolean keepGoing) {
        return run(processor, lines, out, err, keepGoing, null, () -> false);
    }

    /**
     * As {@link #run(CommandProcessor, InputStream, PrintStream, PrintStream, boolean)} for a
     * resident framework's client (null: this process's own lines): relative paths resolve against
     * the client's working folder, what commands start gets the client's environment, and no line
     * starts once {@code ended} (a stop request has ended the client's run).
     */
    static int run(CommandProcessor processor, InputStream lines, PrintStream out, PrintStream err,
            boolean keepGoing, Client client, BooleanSupplier ended) {
        int status = 0;
        try (CommandSession session = processor.createSession(InputStream.nullInputStream(), out, err);
                BufferedReader in = new BufferedReader(new InputStreamReader(lines, Charset.defaultCharset()))) {
            if (client != null) {
                session.currentDir(client.workingDir());
                session.put(WorkingFolder.RELAYED_STREAMS, Boolean.TRUE);
                if (client.environment() != null) {
                    session.put(WorkingFolder.CLIENT_ENVIRONMENT, client.environment());
                }
            }
            int number = 0;
            for (String line = in.readLine(); line != null && !ended.getAsBoolean(); line = in.readLine()) {
                number++;
                if (line.isBlank() || line.strip().startsWith("#")) {
                    continue;
                }
                int failed = execute(session, line, number, out, err, keepGoing);
                if (failed != 0) {
                    status = status == 0 ? failed : status;
                    if (!keepGoing) {
                        break;
                    }
                }
            }
        } catch (IOException e) {
            err.println("hyperprof: the command lines could not be read: " + e.getMessage());
            status = status == 0 ? CommandFailure.FAILED : status;
        }
        out.flush();
        err.flush();
        return status;
    }

    /** One line: 0 when it ran, else its exit status; what it returns is printed as Gogo's prompt prints it. */
    private static int execute(CommandSession session, String line, int number, PrintStream out, PrintStream err,
            boolean keepGoing) {
        int status;
        String why = "";
        try {
            Object result = session.execute(line);
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return 0;
        } catch (CommandFailure e) {
            // An hp: command's failure: it has printed why.
            status = e.status();
        } catch (Exception e) {
            // Gogo's own refusal of the line, or another scope's command: its message says why.
            status = byGogo(e) ? CommandFailure.USAGE : CommandFailure.FAILED;
            why = " (" + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip()) + ")";
        } finally {
            out.flush();
        }
        err.println("hyperprof: line " + number + " failed (exit " + status + "): " + line.strip() + why
                + (keepGoing ? "" : "; the lines after it are not run (--keep-going runs them)"));
        err.flush();
        return status;
    }

    /**
     * Gogo's own refusal of a line: a syntax error, an unknown command, or arguments no method of the
     * command takes; Gogo throws them (SyntaxError, IllegalArgumentException) from its own code.
     */
    private static boolean byGogo(Exception e) {
        StackTraceElement[] at = e.getStackTrace();
        boolean thrownByGogo = at.length > 0 && at[0].getClassName().startsWith("org.apache.felix.gogo.");
        // An incomplete line (an unclosed bracket or quote) comes as an EOFException caused by one.
        return syntaxError(e.getClass()) || e.getCause() != null && syntaxError(e.getCause().getClass())
                || thrownByGogo && e instanceof IllegalArgumentException;
    }

    /** Gogo's SyntaxError or its subclass EOFError. */
    private static boolean syntaxError(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals("org.apache.felix.gogo.runtime.SyntaxError")) {
                return true;
            }
        }
        return false;
    }
}

package org.hyperprof.shell.session;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Job;

/**
 * The folder a command line's relative paths mean: its Gogo session's current folder, which the
 * resident framework sets to its client's working folder (a JVM's own working folder cannot
 * change, and one framework serves clients in many folders). Every command that takes a file
 * name from the user resolves it here.
 */
public final class WorkingFolder {
    /**
     * Gogo session variable, true in the sessions of the resident framework's clients: their
     * standard streams are relayed over a socket, and this process's own are its log.
     */
    public static final String RELAYED_STREAMS = ".hyperprof.relayed.streams";
    /**
     * Gogo session variable: the environment of the resident framework's client (a
     * {@code Map<String, String>}), which what a command starts must get instead of this process's.
     */
    public static final String CLIENT_ENVIRONMENT = ".hyperprof.client.environment";
    /** Names of this process's own standard streams. */
    private static final Set<String> OWN_STREAMS = Set.of("/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0",
            "/dev/fd/1", "/dev/fd/2", "/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2");

    private WorkingFolder() {
    }

    /** The session's current folder, or this process's outside a Gogo command. */
    public static Path current() {
        CommandSession session = session();
        Path dir = session == null ? null : session.currentDir();
        return dir != null ? dir : Path.of("").toAbsolutePath();
    }

    /**
     * The environment of the command line's caller: the resident framework's client's, or this
     * process's. A process a command starts gets it, and finds its program in its {@code PATH}.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, String> environment() {
        CommandSession session = session();
        Object env = session == null ? null : session.get(CLIENT_ENVIRONMENT);
        return env instanceof Map<?, ?> m ? (Map<String, String>) m : System.getenv();
    }

    private static CommandSession session() {
        Job job = Job.Utils.current();
        return job == null ? null : job.session();
    }

    /**
     * A file name as the user typed it, absolute: {@code ~/} is the home folder, and a relative name
     * is taken in {@link #current()}.
     *
     * @throws IllegalArgumentException when it is no file name this system accepts, or names the
     *             caller's standard stream where that stream is relayed (the resident framework)
     */
    public static Path resolve(String typed) {
        CommandSession session = session();
        if (OWN_STREAMS.contains(typed) && session != null && Boolean.TRUE.equals(session.get(RELAYED_STREAMS))) {
            throw new IllegalArgumentException(typed + " is not yours in the resident framework (its own is its log):"
                    + " name a file, or run with HYPERPROF_RESIDENT=off to stream through " + typed);
        }
        String name = typed.startsWith("~/") ? System.getProperty("user.home") + typed.substring(1) : typed;
        try {
            return current().resolve(name);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + typed + "' is not a file name this system accepts: "
                    + e.getReason(), e);
        }
    }

    /**
     * A name that is either one of {@code names} (an embedded scenario) or a file name: an existing
     * file's {@link #resolve resolved} name, else the name as typed, for the refusal to quote.
     */
    public static String nameOrFile(String typed, Collection<String> names) {
        if (typed == null || names.contains(typed)) {
            return typed;
        }
        Path file = resolve(typed);
        return Files.exists(file) ? file.toString() : typed;
    }

    /**
     * {@code args} with the file of each {@code --option=file} of {@code fileOptions} (e.g.
     * {@code --xen=}) {@link #resolve resolved}.
     */
    public static List<String> resolveOptions(List<String> args, String... fileOptions) {
        List<String> resolved = new ArrayList<>(args.size());
        for (String a : args) {
            String r = a;
            for (String option : fileOptions) {
                if (a.startsWith(option) && a.length() > option.length()) {
                    r = option + resolve(a.substring(option.length()));
                }
            }
            resolved.add(r);
        }
        return resolved;
    }
}

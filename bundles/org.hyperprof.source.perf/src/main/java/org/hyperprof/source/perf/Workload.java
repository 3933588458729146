package org.hyperprof.source.perf;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import org.hyperprof.shell.session.WorkingFolder;

/**
 * The command {@code hp:record} runs under perf, checked the way the shell that runs it looks it
 * up: a name with a slash is a file, any other name is searched in {@code PATH}. A command that
 * cannot be run is refused before perf starts, with the system's reason, rather than recorded as
 * a shell that failed to exec it.
 */
final class Workload {

    /** The shell's status for a command it could not find (126: found but not executable). */
    static final int NOT_FOUND = 127;
    static final int NOT_EXECUTABLE = 126;

    private Workload() {
    }

    /**
     * Why the command cannot be run, or null when it can.
     *
     * @param name the command's first word
     * @param path the {@code PATH} it is searched in (null: none)
     */
    static String whyNotRunnable(String name, String path) {
        if (name.isEmpty()) {
            return "the command is empty";
        }
        if (name.indexOf('/') >= 0) {
            Path p;
            try {
                p = WorkingFolder.current().resolve(name);
            } catch (InvalidPathException e) {
                return "'" + name + "' is not a file name this system accepts (" + e.getReason() + ")";
            }
            if (!Files.exists(p)) {
                return name + ": no such file";
            }
            if (Files.isDirectory(p)) {
                return name + " is a directory";
            }
            return Files.isExecutable(p) ? null : name + " is not executable (permission denied)";
        }
        return inPath(name, path) != null ? null : name + ": not found in PATH (" + (path == null ? "" : path) + ")";
    }

    /**
     * The program {@code name} names as the shell finds it in {@code path}, or null: a process the
     * JVM starts is looked up in the JVM's own PATH, which in the resident framework is not the
     * caller's.
     */
    static Path inPath(String name, String path) {
        for (String dir : (path == null ? "" : path).split(File.pathSeparator, -1)) {
            // An empty PATH entry is the working directory, as for the shell.
            Path candidate = WorkingFolder.current().resolve(dir).resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** What the shell's exit status says about a command it could not run, or null for any other status. */
    static String shellStatus(int status) {
        return switch (status) {
            case NOT_FOUND -> "not found";
            case NOT_EXECUTABLE -> "found but not executable";
            default -> null;
        };
    }
}

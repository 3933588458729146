package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.hyperprof.api.input.FileKind;
import org.hyperprof.input.InputFile;

/**
 * The check every path a user gives the perf commands passes before it is opened: it must name a
 * regular file (procfs files such as /proc/kallsyms are regular files too). A named pipe is
 * refused rather than read as a pipe-mode stream: opening it waits for a writer, and reading it
 * waits for that writer's end, maybe forever, in a command that cannot be interrupted; a recording
 * made through a pipe is imported from the file it was saved to, or live with hp:record, which
 * runs perf itself and so knows when it ends. A device (/dev/zero) never ends; a directory or a
 * socket holds no recording. What the path names is told by {@link InputFile}, the one check of
 * every input path; the words here are the perf commands' own.
 */
final class InputFiles {

    private InputFiles() {
    }

    /** Why {@code path} cannot be read as a file, with what to do, or null when it is a regular file. */
    static String problem(Path path) {
        FileKind kind;
        try {
            kind = InputFile.kind(path);
        } catch (NoSuchFileException e) {
            return "does not exist";
        } catch (IOException | SecurityException e) {
            return "cannot be looked at (" + e.getMessage() + "); check that it exists and is readable";
        }
        return switch (kind) {
            case REGULAR -> null;
            case DIRECTORY -> "is a directory, not a file; give the file in it";
            case FIFO -> "is a named pipe (FIFO), not a regular file: reading it would wait for a writer, maybe"
                    + " forever; import the file a pipe recording was saved to (perf record -o - > file), or record"
                    + " live with hp:record";
            case CHARACTER_DEVICE -> "is a character device, not a regular file: it may never end (as /dev/zero"
                    + " does); give a file";
            default -> "is " + kind.text() + ", not a regular file; give a file";
        };
    }
}

package org.hyperprof.source.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The check every path a user gives the perf commands passes before it is opened: it must name a
 * regular file (procfs files such as /proc/kallsyms are regular files too). A named pipe is
 * refused rather than read as a pipe-mode stream: opening it waits for a writer, and reading it
 * waits for that writer's end, maybe forever, in a command that cannot be interrupted; a recording
 * made through a pipe is imported from the file it was saved to, or live with hp:record, which
 * runs perf itself and so knows when it ends. A device (/dev/zero) never ends; a directory or a
 * socket holds no recording.
 */
final class InputFiles {

    private InputFiles() {
    }

    /** Why {@code path} cannot be read as a file, with what to do, or null when it is a regular file. */
    static String problem(Path path) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return "does not exist";
        } catch (IOException | SecurityException e) {
            return "cannot be looked at (" + e.getMessage() + "); check that it exists and is readable";
        }
        if (a.isRegularFile()) {
            return null;
        }
        if (a.isDirectory()) {
            return "is a directory, not a file; give the file in it";
        }
        return switch (kind(path)) {
            case FIFO -> "is a named pipe (FIFO), not a regular file: reading it would wait for a writer, maybe"
                    + " forever; import the file a pipe recording was saved to (perf record -o - > file), or record"
                    + " live with hp:record";
            case CHARACTER_DEVICE -> "is a character device, not a regular file: it may never end (as /dev/zero"
                    + " does); give a file";
            case BLOCK_DEVICE -> "is a block device, not a regular file; give a file";
            case SOCKET -> "is a socket, not a regular file; give a file";
            default -> "is not a regular file (a device, named pipe or socket); give a file";
        };
    }

    private enum Kind { FIFO, CHARACTER_DEVICE, BLOCK_DEVICE, SOCKET, OTHER }

    /** The file type from the mode bits (S_IFMT), where the platform gives them. */
    private static Kind kind(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            if (mode instanceof Integer m) {
                return switch (m & 0170000) {
                    case 0010000 -> Kind.FIFO;
                    case 0020000 -> Kind.CHARACTER_DEVICE;
                    case 0060000 -> Kind.BLOCK_DEVICE;
                    case 0140000 -> Kind.SOCKET;
                    default -> Kind.OTHER;
                };
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            // No unix view here: the plain answer.
        }
        return Kind.OTHER;
    }
}

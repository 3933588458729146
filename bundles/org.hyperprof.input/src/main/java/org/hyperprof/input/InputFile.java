package org.hyperprof.input;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

import org.hyperprof.api.input.FileKind;
import org.hyperprof.api.input.NotAFileException;

/**
 * The one place where a path a user gives (a scenario, a symbol file, an image) becomes something
 * to read. What the path names is checked before it is opened, following symbolic links: a regular
 * file is read; a directory, FIFO, device or socket is refused with a {@link NotAFileException}
 * that names the path, what it is and what to do. Opening a FIFO blocks until a writer comes, and
 * a device such as {@code /dev/zero} never ends, so neither may reach a reader.
 *
 * <p>A regular file that reports size 0 is read as a stream to its end: procfs and sysfs files
 * ({@code /proc/kallsyms}) report 0 and hold a great deal. Readers bound every stream with their
 * kind's {@link InputLimit}; a regular file whose size is known above the limit is refused before a
 * byte of it is read.
 */
public final class InputFile {

    // File type bits of st_mode (stat(2)).
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    private InputFile() {
    }

    /**
     * What {@code path} names, following symbolic links.
     *
     * @throws java.nio.file.NoSuchFileException when nothing is there
     * @throws IOException                       when its attributes cannot be read
     */
    public static FileKind kind(Path path) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.isRegularFile()) {
            return FileKind.REGULAR;
        }
        if (attributes.isDirectory()) {
            return FileKind.DIRECTORY;
        }
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            if (mode instanceof Integer m) {
                switch (m & S_IFMT) {
                    case S_IFIFO:
                        return FileKind.FIFO;
                    case S_IFCHR:
                        return FileKind.CHARACTER_DEVICE;
                    case S_IFBLK:
                        return FileKind.BLOCK_DEVICE;
                    case S_IFSOCK:
                        return FileKind.SOCKET;
                    default:
                        break;
                }
            }
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // No unix view on this file system: it is "not a regular file", which is all that matters.
        }
        return FileKind.OTHER;
    }

    /**
     * Checks that {@code path} names a regular file and returns its size (0 for procfs and sysfs
     * files, whose size is known only by reading them).
     *
     * @param what what the file is to the user, for the message: {@code scenario}, {@code symbol file}
     * @throws NotAFileException                 when the path names anything else
     * @throws java.nio.file.NoSuchFileException when nothing is there
     */
    public static long check(Path path, String what) throws IOException {
        FileKind kind = kind(path);
        if (kind != FileKind.REGULAR) {
            throw new NotAFileException(path.toString(), kind, describe(path, kind, what));
        }
        return Files.size(path);
    }

    /**
     * Opens a regular file for reading, after {@link #check}. Bound the stream with the reader's
     * {@link InputLimit#bound}: a file whose size is known above the limit is then refused at once.
     *
     * @throws NotAFileException when the path names anything but a regular file
     */
    public static InputStream open(Path path, String what) throws IOException {
        long size = check(path, what);
        return new Stream(Files.newInputStream(path), size);
    }

    /**
     * Opens a regular file for reading at any position, after {@link #check}, for a reader that
     * needs only parts of a large file (the symbol tables of a 600 MB vmlinux); null for a file that
     * reports size 0, which can only be read as a stream ({@link #open}).
     *
     * @throws NotAFileException when the path names anything but a regular file
     */
    public static FileChannel openChannel(Path path, String what) throws IOException {
        long size = check(path, what);
        return size == 0 ? null : FileChannel.open(path, StandardOpenOption.READ);
    }

    private static String describe(Path path, FileKind kind, String what) {
        String target = "";
        try {
            Path real = path.toRealPath();
            if (!real.equals(path.toAbsolutePath().normalize())) {
                target = " (through a link to " + real + ")";
            }
        } catch (IOException | SecurityException e) {
            // The path's kind was read; where a link leads is only a detail of the message.
        }
        String why = switch (kind) {
            case DIRECTORY -> "give the path of the " + what + " in it";
            case FIFO -> "reading a FIFO waits for a writer and may never end: save what it carries in a regular file"
                    + " and give that";
            case CHARACTER_DEVICE -> "a device such as /dev/zero or a terminal never ends: give a regular file";
            case BLOCK_DEVICE -> "a disk is no " + what + ": give a regular file";
            default -> "give a regular file";
        };
        return "is " + kind.text() + target + ", not a regular file: Hyperprof reads a " + what + " only from a"
                + " regular file; " + why;
    }

    /** A regular file's stream, with the size the file had when it was checked (0: known only by reading). */
    static final class Stream extends FilterInputStream {
        final long size;

        Stream(InputStream in, long size) {
            super(in);
            this.size = size;
        }
    }
}

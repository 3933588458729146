package org.hyperprof.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Map;

import org.hyperprof.api.output.OutputException;

/**
 * A target as the kernel sees it: its symbolic links followed to the file they name, and what that
 * file is. Made fresh for every write, as files come and go.
 *
 * @param given      the target as named (absolute), for messages
 * @param file       the target with its links resolved; for a descriptor, the {@code /proc/<pid>/fd/<n>} entry
 * @param kind       what is there
 * @param existing   the regular file's attributes (mode, owner, group) when one is there, else null
 * @param lockKey    what two writes to the same target share: the file's device and inode for
 *                   anything streamed into, the resolved path for a file replaced by renames
 * @param ownStream  1 or 2 when the target is this process's own standard output or error
 *                   ({@code /dev/stdout}, {@code /proc/self/fd/2}), else 0
 */
record Target(Path given, Path file, Kind kind, PosixFileAttributes existing, Object lockKey, int ownStream) {

    /** Links followed at most, as the kernel's own limit (ELOOP past 40). */
    static final int MAX_LINKS = 40;

    /** What a target is, and so how it is written. */
    enum Kind {
        /** Nothing there yet: a new regular file. */
        ABSENT("file"),
        /** A regular file: replaced whole by a rename (a whole write) or appended to. */
        REGULAR("file"),
        /** A regular file reached through an open descriptor (/proc/self/fd/N, /dev/stdout): appended to in place. */
        DESCRIPTOR_FILE("file behind the descriptor"),
        FIFO("FIFO"),
        CHARACTER_DEVICE("character device"),
        SOCKET("socket");

        final String noun;

        Kind(String noun) {
            this.noun = noun;
        }

        /** Whether the bytes go straight into the target rather than through a temporary file. */
        boolean streamed() {
            return this != ABSENT && this != REGULAR;
        }
    }

    // File type bits of st_mode (sys/stat.h).
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    /**
     * Follows {@code target}'s symbolic links and says what is there.
     *
     * @throws OutputException when a folder on the way is missing or no folder, the links loop, or
     *                         the target is a folder, a disk or something else no output can be
     */
    static Target resolve(Path target) throws OutputException {
        Path given = target.toAbsolutePath();
        Path current = given;
        boolean descriptor = false;
        int ownStream = 0;
        for (int links = 0;; links++) {
            Path name = current.getFileName();
            if (name == null) {
                throw new OutputException(given, "cannot write " + given + ": it is the root folder; name a file");
            }
            Path folder = realFolder(given, current);
            current = folder.resolve(name);
            if (!Files.isSymbolicLink(current)) {
                break;
            }
            if (onProcfs(folder)) {
                // /proc/<pid>/fd/<n> (and /dev/stdout, which links there): a kernel link to an open
                // file, which may be a pipe or a socket with no path; write through it, never past it.
                descriptor = true;
                ownStream = ownStream(folder, name);
                break;
            }
            if (links == MAX_LINKS) {
                throw new OutputException(given, "cannot write " + given + ": more than " + MAX_LINKS
                        + " symbolic links to follow (a loop?)");
            }
            try {
                current = folder.resolve(Files.readSymbolicLink(current));
            } catch (IOException e) {
                throw new OutputException(given, "cannot write " + given + ": cannot read the link " + current + ": "
                        + Failures.reason(e), e);
            }
        }
        return classify(given, current, descriptor, ownStream);
    }

    /**
     * 1 or 2 for this process's own standard output or error. Those are written through the open
     * descriptor itself, sharing its offset: opened anew, a shell's {@code > file} (no O_APPEND)
     * would write over what we put there with the next line it prints.
     */
    private static int ownStream(Path fdFolder, Path name) {
        Path own = Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd");
        if (!fdFolder.equals(own)) {
            return 0;
        }
        return switch (name.toString()) {
            case "1" -> 1;
            case "2" -> 2;
            default -> 0;
        };
    }

    /** The folder {@code path} is in, with its links resolved; refused when missing or no folder. */
    private static Path realFolder(Path given, Path path) throws OutputException {
        Path folder = path.getParent();
        String via = path.equals(given) ? "" : " (where its link leads)";
        Path real;
        try {
            real = folder.toRealPath();
        } catch (NoSuchFileException e) {
            throw new OutputException(given, "cannot write " + given + ": the folder " + folder + via
                    + " does not exist; create it first or name a file in an existing folder", e);
        } catch (IOException e) {
            throw new OutputException(given, "cannot write " + given + ": the folder " + folder + via
                    + " cannot be reached: " + Failures.reason(e), e);
        }
        if (!Files.isDirectory(real)) {
            throw new OutputException(given, "cannot write " + given + ": " + folder + via
                    + " is not a folder; name a file in an existing folder");
        }
        return real;
    }

    private static boolean onProcfs(Path folder) {
        try {
            return "proc".equals(Files.getFileStore(folder).type());
        } catch (IOException e) {
            return false;
        }
    }

    private static Target classify(Path given, Path file, boolean descriptor, int ownStream)
            throws OutputException {
        Map<String, Object> unix;
        try {
            // Follows the last link only for a descriptor: everything else was resolved above.
            unix = Files.readAttributes(file, "unix:mode,dev,ino");
        } catch (NoSuchFileException e) {
            if (descriptor) {
                throw new OutputException(given, "cannot write " + given + ": the descriptor " + file
                        + " is not open", e);
            }
            return new Target(given, file, Kind.ABSENT, null, file.toString(), ownStream);
        } catch (IOException e) {
            throw new OutputException(given, "cannot write " + given + ": cannot look at " + file + ": "
                    + Failures.reason(e), e);
        }
        int type = (Integer) unix.get("mode") & S_IFMT;
        Object inode = "inode " + unix.get("dev") + ":" + unix.get("ino");
        if (type == S_IFDIR) {
            throw new OutputException(given, "cannot write " + given + ": " + (descriptor ? "the descriptor " + file
                    + " is" : "it is") + " a folder; name a file in it");
        }
        if (type == S_IFREG) {
            if (descriptor) {
                return new Target(given, file, Kind.DESCRIPTOR_FILE, null, inode, ownStream);
            }
            PosixFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                throw new OutputException(given, "cannot write " + given + ": cannot look at " + file + ": "
                        + Failures.reason(e), e);
            }
            return new Target(given, file, Kind.REGULAR, attributes, file.toString(), ownStream);
        }
        switch (type) {
            case S_IFIFO:
                return new Target(given, file, Kind.FIFO, null, inode, ownStream);
            case S_IFCHR:
                return new Target(given, file, Kind.CHARACTER_DEVICE, null, inode, ownStream);
            case S_IFSOCK:
                if (descriptor && ownStream == 0) {
                    throw new OutputException(given, "cannot write " + given + ": the descriptor " + file
                            + " is a socket, which cannot be opened by name; redirect it to a file or a FIFO");
                }
                return new Target(given, file, Kind.SOCKET, null, inode, ownStream);
            case S_IFBLK:
                throw new OutputException(given, "cannot write " + given + ": " + (file.equals(given) ? "it" : file)
                        + " is a block device (a disk); Hyperprof writes files, FIFOs, character devices and"
                        + " sockets, never over a disk");
            default:
                throw new OutputException(given, "cannot write " + given + ": " + file + " is of a kind no output"
                        + " can be (mode " + Integer.toOctalString(type) + ")");
        }
    }

    /** How messages name the target: as given, and where its links lead when they do. */
    String named() {
        return file.equals(given) ? given.toString() : given + " (-> " + file + ")";
    }
}

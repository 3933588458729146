package org.hyperprof.output;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

import org.hyperprof.api.output.Appender;
import org.hyperprof.api.output.Content;
import org.hyperprof.api.output.OutputException;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.output.Written;
import org.osgi.service.component.annotations.Component;

/**
 * The one implementation of {@link OutputFiles} (see there for the rule). One instance serves the
 * whole framework, so its lock table sees every write Hyperprof makes.
 */
@Component(service = OutputFiles.class)
public final class OutputFilesComponent implements OutputFiles {

    /** Bytes buffered between a content and its target. */
    static final int BUFFER = 1 << 16;

    /** A chunk of an appender is small (a batch's CSV lines): a smaller buffer per chunk. */
    static final int CHUNK_BUFFER = 1 << 13;

    /** Longest part of the target's name in a temporary file's name, in UTF-8 bytes (NAME_MAX is 255). */
    private static final int TEMPORARY_NAME_BYTES = 200;

    /** Tries of a target whose kind changes between looking at it and holding it, before giving up. */
    private static final int RESOLVE_TRIES = 10;

    private final TargetLocks locks;

    /**
     * This process's standard output and error, made once per component and never closed: a stream
     * made on a FileDescriptor stays attached to it for good, so one per write would pile up.
     */
    private final FileOutputStream standardOutput = new FileOutputStream(FileDescriptor.out);
    private final FileOutputStream standardError = new FileOutputStream(FileDescriptor.err);

    /** The constructor Declarative Services uses. */
    public OutputFilesComponent() {
        this(file -> {
        });
    }

    /** @param waiting told when a write finds its target busy and waits (a hook for tests) */
    OutputFilesComponent(Consumer<Path> waiting) {
        this.locks = new TargetLocks(Objects.requireNonNull(waiting, "waiting"));
    }

    @Override
    public Written write(Path target, Content content) throws OutputException {
        Objects.requireNonNull(content, "content");
        try (Locked locked = lock(target)) {
            Target t = locked.target;
            return t.kind().streamed() ? stream(t, content) : replace(t, content);
        }
    }

    @Override
    public Appender appender(Path target, Content header) throws OutputException {
        try (Locked locked = lock(target)) {
            Target t = locked.target;
            WritableByteChannel channel = openForAppending(t);
            FileAppender appender = new FileAppender(t, channel, locks);
            if (header != null && fresh(t, channel)) {
                appender.writeChunk(header);
            }
            return appender;
        }
    }

    @Override
    public Path folder(Path folder) throws OutputException {
        if (folder == null) {
            throw new OutputException(null, "no output folder given; name one");
        }
        Path given = folder.toAbsolutePath();
        Path current = given;
        try {
            for (int links = 0;; links++) {
                if (Files.isDirectory(current)) {
                    return current.toRealPath();
                }
                if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(current);
                    return current.toRealPath();
                }
                if (!Files.isSymbolicLink(current) || Files.exists(current)) {
                    throw new OutputException(given, "cannot use " + given + " as the output folder: "
                            + (current.equals(given) ? "it" : current) + " exists and is no folder; name a folder");
                }
                // A link to nothing yet: the folder goes where it leads.
                if (links == Target.MAX_LINKS) {
                    throw new OutputException(given, "cannot use " + given + " as the output folder: more than "
                            + Target.MAX_LINKS + " symbolic links to follow (a loop?)");
                }
                current = current.getParent().resolve(Files.readSymbolicLink(current));
            }
        } catch (OutputException e) {
            throw e;
        } catch (IOException e) {
            throw new OutputException(given, "cannot create the output folder " + given + ": "
                    + (e instanceof FileAlreadyExistsException f ? f.getFile() + " is in the way, and no folder"
                            : Failures.reason(e)), e);
        }
    }

    // ---------------------------------------------------------------- whole writes

    /** Straight into a FIFO, a device, a socket or a descriptor: nothing there is replaced. */
    private Written stream(Target t, Content content) throws OutputException {
        Streams.Counter counter = null;
        try (WritableByteChannel channel = openStream(t, false)) {
            counter = new Streams.Counter(channel);
            Streams.pour(content, counter, BUFFER);
        } catch (OutputException e) {
            throw e;
        } catch (IOException e) {
            long bytes = counter == null ? 0 : counter.bytes;
            throw new OutputException(t.given(), "could not write to the " + t.kind().noun + " " + t.named()
                    + (counter == null ? "" : " after " + bytes + " bytes") + ": " + Failures.reason(e), e);
        }
        return new Written(t.given(), t.file(), Written.Placement.STREAMED, counter.bytes);
    }

    /**
     * A temporary file in the target's own folder, renamed over it once whole and on disk; an
     * existing file's mode (and, where permitted, owner and group) carry over.
     */
    private static Written replace(Target t, Content content) throws OutputException {
        PosixFileAttributes existing = t.existing();
        Path temporary = createTemporary(t);
        Streams.Counter counter;
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                counter = new Streams.Counter(channel);
                Streams.pour(content, counter, BUFFER);
                // On disk before the rename: after a crash the target is the old file or the new one.
                channel.force(true);
            }
            if (existing != null) {
                keepAttributes(temporary, existing);
            }
            rename(temporary, t.file());
        } catch (IOException e) {
            String left = discard(temporary);
            throw new OutputException(t.given(), "could not write " + t.named() + ": " + Failures.reason(e) + "; "
                    + (existing != null ? "the file there before is unchanged" : "no file was left behind") + left,
                    e);
        } catch (RuntimeException | Error e) {
            discard(temporary);
            throw e;
        }
        return new Written(t.given(), t.file(),
                existing != null ? Written.Placement.REPLACED : Written.Placement.CREATED, counter.bytes);
    }

    /**
     * A new empty file next to the target, named after it and hidden. Created with the old file's
     * mode (narrowed by the umask until {@link #keepAttributes}) or, for a new file, with the mode the
     * umask gives any new file, never a temporary file's owner-only mode: outputs are meant to be shared.
     */
    private static Path createTemporary(Target t) throws OutputException {
        Path folder = t.file().getParent();
        String name = shortened(t.file().getFileName().toString());
        FileAttribute<?>[] mode = t.existing() == null ? new FileAttribute<?>[0]
                : new FileAttribute<?>[] { PosixFilePermissions.asFileAttribute(t.existing().permissions()) };
        for (int attempt = 0;; attempt++) {
            Path temporary = folder.resolve("." + name + "."
                    + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
            try {
                return Files.createFile(temporary, mode);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 99) {
                    throw new OutputException(t.given(), "cannot write " + t.named()
                            + ": no free temporary name in " + folder, e);
                }
            } catch (IOException e) {
                throw new OutputException(t.given(), "cannot write " + t.named() + ": cannot create a file in "
                        + folder + ": " + Failures.reason(e)
                        + (t.existing() != null ? "; the file there is unchanged" : ""), e);
            }
        }
    }

    private static String shortened(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= TEMPORARY_NAME_BYTES) {
            return name;
        }
        int end = 0;
        int bytes = 0;
        while (end < name.length()) {
            int cp = name.codePointAt(end);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > TEMPORARY_NAME_BYTES) {
                break;
            }
            bytes += size;
            end += Character.charCount(cp);
        }
        return name.substring(0, end);
    }

    /** Owner and group first (changing them may clear mode bits), then the mode. */
    private static void keepAttributes(Path temporary, PosixFileAttributes existing) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(temporary, PosixFileAttributeView.class);
        PosixFileAttributes now = view.readAttributes();
        try {
            if (!now.owner().equals(existing.owner())) {
                view.setOwner(existing.owner());
            }
        } catch (FileSystemException notPermitted) {
            // Only root gives files away: like any editor that saves by renaming, the file becomes the writer's.
        }
        try {
            if (!now.group().equals(existing.group())) {
                view.setGroup(existing.group());
            }
        } catch (FileSystemException notPermitted) {
            // A group the writer is not in: the writer's group, as above.
        }
        view.setPermissions(existing.permissions());
    }

    private static void rename(Path temporary, Path file) throws IOException {
        try {
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            // Cannot happen in one folder; a plain rename is no worse.
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Removes a temporary file; says so when it cannot. */
    private static String discard(Path temporary) {
        try {
            Files.deleteIfExists(temporary);
            return "";
        } catch (IOException e) {
            return "; the temporary file " + temporary + " could not be removed: " + Failures.reason(e);
        }
    }

    // ---------------------------------------------------------------- opening

    /**
     * A FIFO or device opened for writing (a FIFO: once a reader has opened it), a descriptor's file
     * appended to, a socket connected to.
     */
    private WritableByteChannel openStream(Target t, boolean appending) throws OutputException {
        if (t.ownStream() != 0) {
            return new OwnStream(t.ownStream() == 1 ? standardOutput : standardError);
        }
        try {
            switch (t.kind()) {
                case SOCKET:
                    return SocketChannel.open(UnixDomainSocketAddress.of(t.file()));
                case DESCRIPTOR_FILE:
                    // Appended, not truncated: a shell's "> file" already holds what came before.
                    return FileChannel.open(t.file(), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                case FIFO:
                case CHARACTER_DEVICE:
                    return FileChannel.open(t.file(), StandardOpenOption.WRITE);
                case ABSENT:
                case REGULAR:
                    if (appending) {
                        return FileChannel.open(t.file(), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                StandardOpenOption.APPEND);
                    }
                    throw new IllegalStateException(t.kind() + " is written through a temporary file");
                default:
                    throw new IllegalStateException("no way to open " + t.kind());
            }
        } catch (IOException e) {
            throw new OutputException(t.given(), "cannot open the " + t.kind().noun + " " + t.named() + ": "
                    + Failures.reason(e), e);
        }
    }

    private WritableByteChannel openForAppending(Target t) throws OutputException {
        return openStream(t, true);
    }

    /** A header goes into a new or empty file, and into every stream (each reader starts afresh). */
    private static boolean fresh(Target t, WritableByteChannel channel) throws OutputException {
        if (!(channel instanceof FileChannel file) || t.kind() == Target.Kind.FIFO
                || t.kind() == Target.Kind.CHARACTER_DEVICE) {
            return true;
        }
        try {
            return file.size() == 0;
        } catch (IOException e) {
            throw new OutputException(t.given(), "cannot append to " + t.named() + ": " + Failures.reason(e), e);
        }
    }

    // ---------------------------------------------------------------- holding targets

    /** A resolved target held against other writes. */
    private static final class Locked implements AutoCloseable {
        final Target target;
        final TargetLocks.Held held;

        Locked(Target target, TargetLocks.Held held) {
            this.target = target;
            this.held = held;
        }

        @Override
        public void close() {
            held.close();
        }
    }

    /**
     * Resolves and holds the target; looks again once held, since a write that held it before may
     * have changed what is there (an absent file is now a file).
     */
    private Locked lock(Path target) throws OutputException {
        if (target == null) {
            throw new OutputException(null, "no target given; name a file");
        }
        Target t = Target.resolve(target);
        for (int attempt = 1;; attempt++) {
            TargetLocks.Held held = locks.acquire(t);
            Target now;
            try {
                now = Target.resolve(target);
            } catch (OutputException | RuntimeException e) {
                held.close();
                throw e;
            }
            if (now.lockKey().equals(t.lockKey())) {
                return new Locked(now, held);
            }
            held.close();
            if (attempt == RESOLVE_TRIES) {
                throw new OutputException(t.given(), "cannot write " + t.named()
                        + ": it keeps changing while other writes use it");
            }
            t = now;
        }
    }

    /** Targets held or waited for right now (tests check that none stays behind). */
    int busyTargets() {
        return locks.busy();
    }
}

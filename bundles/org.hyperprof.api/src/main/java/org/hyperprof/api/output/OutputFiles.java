package org.hyperprof.api.output;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Writes every file Hyperprof writes (exports, the study's CSV and SVG, a consumer's CSV), so that
 * none replaces something it should not. The rule, for every target:
 * <ol>
 * <li>symbolic links are resolved first, so a link stays a link and its target gets the bytes;</li>
 * <li>a target that is no regular file (a FIFO, a character device, a socket, a descriptor under
 * {@code /proc/self/fd}, hence also {@code /dev/stdout}) is streamed into, never replaced; a
 * block device (a disk) is refused;</li>
 * <li>a regular file or an absent one is written as a temporary file in its own folder and renamed
 * over it, keeping an existing file's mode; on failure (a full disk) the old file stays as it was
 * and the temporary file is removed;</li>
 * <li>a target whose folder is missing is refused: only {@link #folder} creates folders;</li>
 * <li>two writes to one target never interleave: the second waits for the first.</li>
 * </ol>
 * Every refusal and failure is an {@link OutputException} with one line for the user.
 */
@ProviderType
public interface OutputFiles {

    /**
     * Writes a whole output: {@code content} is called once, with a stream on the temporary file
     * or on the streamed target.
     *
     * @param target the file (relative paths are taken from the working directory)
     * @return where the bytes went and how
     */
    Written write(Path target, Content content) throws OutputException;

    /**
     * Opens an output to append to as data arrives. A regular file is appended to (created when
     * absent), never replaced; anything else is streamed into.
     *
     * @param header written first when the target is a new or empty file, or a stream; null for none
     */
    Appender appender(Path target, Content header) throws OutputException;

    /**
     * An output folder (an {@code --out DIR} option): created with its missing parents when absent.
     *
     * @return the folder with its symbolic links resolved
     * @throws OutputException when it exists and is no folder, or cannot be created
     */
    Path folder(Path folder) throws OutputException;
}

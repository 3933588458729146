package org.hyperprof.source.perf;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where an import finds symbols, and how it batches.
 *
 * @param kallsyms       the host kernel's symbols (a copy of /proc/kallsyms or System.map), or null
 *                       for perf's choice: its build-id cache copy, else /proc/kallsyms
 * @param guestKallsyms  each guest's kernel symbols by the guest's (QEMU) pid, as perf kvm's
 *                       {@code --guestkallsyms}; key {@link #ANY_GUEST} applies to every guest not listed
 * @param buildIdCache   perf's build-id cache ({@code ~/.debug}), or null to not use one
 * @param debugRoot      where separate debug files live ({@code /usr/lib/debug}), or null
 * @param jitMapDir      where JIT symbol maps {@code perf-<pid>.map} are looked for ({@code /tmp}), or null
 * @param batchSize      samples per batch handed to consumers
 * @param callchains     whether callchains are resolved and handed on
 * @param maxHeaderBytes the most bytes of a recording's header (attrs, ids, the features read; a
 *                       stream's header records) an import holds in memory; the rest of an import's
 *                       memory is bounded by constants and by what its records hold
 * @param time           the samples kept by their time, in perf report's {@code --time} forms
 *                       ({@link TimeRanges}), or null for all
 * @param demangle       whether reports show C++ and Rust names demangled (perf report's default) or
 *                       as the recording's images have them
 */
public record ImportOptions(Path kallsyms, Map<Integer, Path> guestKallsyms, Path buildIdCache, Path debugRoot,
        Path jitMapDir, int batchSize, boolean callchains, long maxHeaderBytes, String time, boolean demangle) {

    /** The {@link #guestKallsyms} key for "every guest". */
    public static final int ANY_GUEST = -1;

    public static final int DEFAULT_BATCH_SIZE = 4096;
    /**
     * A recording's header is kilobytes to a few megabytes (an attr of 136 bytes and an id per CPU
     * and thread for each event, a build-id per image hit): 64 MiB is far above any, and far below
     * what a corrupt size would make an import allocate.
     */
    public static final long DEFAULT_MAX_HEADER_BYTES = 64L << 20;
    /** The bound's own bound: header sections are read into arrays. */
    public static final long MAX_HEADER_BYTES = Integer.MAX_VALUE - 8;

    public ImportOptions {
        guestKallsyms = Map.copyOf(guestKallsyms);
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " must be at least 1 sample");
        }
        if (maxHeaderBytes < 1 || maxHeaderBytes > MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("the header bound " + maxHeaderBytes + " must be 1 to "
                    + MAX_HEADER_BYTES + " bytes");
        }
    }

    /** perf report's places: the build-id cache in the home directory, /usr/lib/debug, /tmp. */
    public static ImportOptions defaults() {
        return new ImportOptions(null, Map.of(), Path.of(System.getProperty("user.home"), ".debug"),
                Path.of("/usr/lib/debug"), Path.of("/tmp"), DEFAULT_BATCH_SIZE, true, DEFAULT_MAX_HEADER_BYTES, null,
                true);
    }

    public ImportOptions withKallsyms(Path file) {
        return with(o -> o.kallsyms = file);
    }

    public ImportOptions withGuestKallsyms(Map<Integer, Path> files) {
        return with(o -> o.guestKallsyms = files);
    }

    public ImportOptions withBatchSize(int size) {
        return with(o -> o.batchSize = size);
    }

    public ImportOptions withCallchains(boolean on) {
        return with(o -> o.callchains = on);
    }

    public ImportOptions withSymbolDirs(Path cache, Path debug, Path jit) {
        return with(o -> {
            o.buildIdCache = cache;
            o.debugRoot = debug;
            o.jitMapDir = jit;
        });
    }

    public ImportOptions withMaxHeaderBytes(long bytes) {
        return with(o -> o.maxHeaderBytes = bytes);
    }

    /** Keeps only the samples in the windows of {@code ranges} (perf report's {@code --time}), or all for null. */
    public ImportOptions withTime(String ranges) {
        return with(o -> o.time = ranges);
    }

    /** Shows names demangled ({@code true}, the default) or as the images have them. */
    public ImportOptions withDemangle(boolean on) {
        return with(o -> o.demangle = on);
    }

    /** These options with {@code change} made: each wither names only what it changes. */
    private ImportOptions with(Consumer<Draft> change) {
        Draft o = new Draft(this);
        change.accept(o);
        return new ImportOptions(o.kallsyms, o.guestKallsyms, o.buildIdCache, o.debugRoot, o.jitMapDir, o.batchSize,
                o.callchains, o.maxHeaderBytes, o.time, o.demangle);
    }

    /** A changeable copy of the components, made into new options (checked by the constructor). */
    private static final class Draft {
        Path kallsyms;
        Map<Integer, Path> guestKallsyms;
        Path buildIdCache;
        Path debugRoot;
        Path jitMapDir;
        int batchSize;
        boolean callchains;
        long maxHeaderBytes;
        String time;
        boolean demangle;

        Draft(ImportOptions from) {
            kallsyms = from.kallsyms;
            guestKallsyms = from.guestKallsyms;
            buildIdCache = from.buildIdCache;
            debugRoot = from.debugRoot;
            jitMapDir = from.jitMapDir;
            batchSize = from.batchSize;
            callchains = from.callchains;
            maxHeaderBytes = from.maxHeaderBytes;
            time = from.time;
            demangle = from.demangle;
        }
    }

    /** The kallsyms file given for a guest, or the one for every guest, or null. */
    Path guestKallsyms(int pid) {
        Path p = guestKallsyms.get(pid);
        return p != null ? p : guestKallsyms.get(ANY_GUEST);
    }
}

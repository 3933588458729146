package org.hyperprof.api.sample;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The images and symbols of a session, by the small integer ids that {@link SampleBatch}es carry.
 * Images are per domain (each domain's daemon resolves its own, the hypervisor image included).
 * The dictionary grows while the session runs; every id in a batch a consumer has received is
 * already readable. Safe to read from any thread.
 *
 * <h2>Address symbols</h2>
 * A source that keys addresses no symbol covers (perf report's {@code [unknown]} rows: an image and
 * an address) names each such pair once as an <i>address symbol</i>. Their ids lie below
 * {@link #NO_SYMBOL} ({@code -2, -3, ...}; {@link #addressIndex} numbers them from 0), so a report
 * that shows every negative symbol id as "no symbol" shows them as it shows {@link #NO_SYMBOL}, and
 * one that wants them (or, later, a symbolizer) reads {@link #symbolImage}, {@link #symbolAddress}
 * and {@link #symbolName} (perf's 16 hex digits) of them.
 */
@ProviderType
public interface SessionDictionary {
    /** Symbol id of a sample that no symbol covers ("(no symbols)"). */
    int NO_SYMBOL = -1;

    int imageCount();

    /** The image's name as reports print it. */
    String imageName(int image);

    ImageKind imageKind(int image);

    /** The domain whose daemon resolved the image. */
    int imageDomain(int image);

    /** Symbols named, ids 0 to {@code symbolCount() - 1}; address symbols are not among them. */
    int symbolCount();

    /** The symbol's name as the source gave it (mangled, for C++ and Rust); for an address symbol its address as perf prints it. */
    String symbolName(int symbol);

    /**
     * The symbol's name as reports show it: a C++ (Itanium ABI) or Rust name demangled in full, as
     * binutils' c++filt prints it (a Rust legacy name without its {@code ::h<hash>}); any other name as
     * {@link #symbolName} gives it. Demangled once, when first asked.
     *
     * @since 2.1
     */
    default String shownName(int symbol) {
        return symbolName(symbol);
    }

    /**
     * The short form of {@link #shownName}, as perf report prints names: no parameter list and no
     * return type (what c++filt -p prints: {@code tw<int>}).
     *
     * @since 2.1
     */
    default String briefName(int symbol) {
        return symbolName(symbol);
    }

    /**
     * Where symbol {@code symbol} starts, in the address space its source resolves the image's
     * addresses in (for a perf recording, perf's: the address inside the mapped file, {@code pc -
     * mapping start + file offset}), so that a sample's offset into it is what {@code perf script}
     * prints as {@code sym+0x1a}; {@link SampleBatch#UNKNOWN} where the source did not tell.
     *
     * @since 2.3
     */
    default long symbolStart(int symbol) {
        return SampleBatch.UNKNOWN;
    }

    /** The image a symbol (or address symbol) belongs to. */
    int symbolImage(int symbol);

    /** Whether {@code symbol} is an address symbol: an image and an address no symbol covers. */
    static boolean isAddress(int symbol) {
        return symbol < NO_SYMBOL;
    }

    /** The index, from 0, of address symbol {@code symbol}: for arrays sized by {@link #addressCount()}. */
    static int addressIndex(int symbol) {
        return NO_SYMBOL - 1 - symbol;
    }

    /** The id of the address symbol of index {@code index} ({@link #addressIndex}'s inverse). */
    static int addressSymbolOf(int index) {
        return NO_SYMBOL - 1 - index;
    }

    /** Address symbols named: indexes 0 to {@code addressCount() - 1}; none unless the source names them. */
    default int addressCount() {
        return 0;
    }

    /** The address of an address symbol (relative to its image or at run time, as the source keyed it). */
    default long symbolAddress(int symbol) {
        throw new IllegalArgumentException(
                "symbol id " + symbol + " is no address symbol of this dictionary, which has none");
    }

    /** The address symbol of {@code address} in {@code image}, or {@link #NO_SYMBOL} if the source named none. */
    default int addressSymbol(int image, long address) {
        return NO_SYMBOL;
    }

    /**
     * The name of process {@code pid} of a domain (perf's comm, as last named before the session's
     * samples of it), or null when the source did not name it ({@link SampleBatch#UNKNOWN} included).
     */
    String processName(int domain, int pid);

    /**
     * The command name of comm id {@code comm} (a sample's {@link SampleBatch#comm}): the name its
     * thread had when the sample was taken, as perf names it ({@code :<tid>} for a thread whose name
     * the recording never gave), or null for {@link SampleBatch#UNKNOWN} or a source without comms.
     *
     * @since 2.1
     */
    default String commName(int comm) {
        return null;
    }

    /**
     * Where images lay in the processes' (and kernels') address spaces, as the source read them:
     * mappings 0 to {@code mappingCount() - 1}, in the order the source met them (a later mapping of
     * the same addresses of a process replaces an earlier one from then on). None unless the source
     * knows them (the simulator's images have no files).
     *
     * @since 2.2
     */
    default int mappingCount() {
        return 0;
    }

    /**
     * Mapping {@code index} (see {@link #mappingCount()}).
     *
     * @throws IndexOutOfBoundsException for an index not below {@link #mappingCount()}
     * @since 2.2
     */
    default ImageMapping mapping(int index) {
        throw new IndexOutOfBoundsException("mapping " + index + " of a dictionary with no mappings");
    }

    /**
     * The build-id of an image (the GNU build-id note, in lower-case hex, as {@code readelf -n} and
     * {@code perf buildid-list} print it), or null when the source did not read one.
     *
     * @since 2.2
     */
    default String imageBuildId(int image) {
        return null;
    }

    /**
     * Comms named: comm ids 0 to {@code commCount() - 1} (none for a source without comms). With
     * {@link #commThread} it lets a store keep a session's comms and give them back as they were.
     *
     * @since 2.3
     */
    default int commCount() {
        return 0;
    }

    /**
     * The thread comm id {@code comm} belongs to: a number the source gives each thread it tells
     * apart (a reused tid being a new thread), so that comms of one thread share it; -1 when not known.
     *
     * @since 2.3
     */
    default int commThread(int comm) {
        return -1;
    }

    /**
     * Whether {@link #shownName} and {@link #briefName} demangle, or give names as the source gave
     * them (a session imported with demangling off): session state a store keeps.
     *
     * @since 2.3
     */
    default boolean demangles() {
        return false;
    }

    /**
     * The path of the file on this machine that holds an image's code, when the source knows one
     * and the image's name is not it (a simulated host's real ELF image that the reports name
     * {@code libjvm.so}); null otherwise, and then an image name that is an absolute path (perf's
     * images) is the file. What annotation disassembles.
     *
     * @since 2.3
     */
    default String imageFile(int image) {
        return null;
    }

    /**
     * The last command name of the thread that had comm id {@code comm}: what perf report's
     * {@code pid} key prints after the thread's id. Null where {@link #commName} is.
     *
     * @since 2.1
     */
    default String threadName(int comm) {
        return commName(comm);
    }
}

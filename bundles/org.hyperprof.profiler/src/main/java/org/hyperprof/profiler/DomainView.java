package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.pipeline.AddressRanges;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.SymbolTables;

/**
 * One domain's daemon view of its address space within one session: the memory map as sorted
 * primitive arrays (binary search by PC), the symbol table of each image (loaded on the image's
 * first sample through the shared cache), and the interning of (mapping, symbol index) into the
 * session's dictionary ids.
 *
 * <p>Not thread-safe: used under the session's collector lock. The per-PC path allocates nothing;
 * only the first sample of an image or symbol adds a dictionary entry.
 */
final class DomainView implements SampleView {
    static final String UNKNOWN_IMAGE = "(unknown image)";

    private static final byte TABLE_UNTRIED = 0;
    private static final byte TABLE_LOADED = 1;
    /** No symbol file, or it failed to load: the image's samples stay "(no symbols)". */
    private static final byte TABLE_NONE = 2;
    /** No resolver for the format yet: retried when the set of resolvers changes. */
    private static final byte TABLE_NO_RESOLVER = 3;

    final int domid;
    private final Dictionary dictionary;
    private final SymbolTables symbolTables;
    private final ProblemLog problems;

    private final long[] starts;
    private final long[] ends;
    private final Mapping[] mappings;
    private final SymbolTable[] tables;
    private final byte[] tableState;
    private final int[] tableGeneration;
    private final int[] imageIds;
    private final int[][] symbolIds;
    private int unknownImage = -1;

    /** Samples (not call-chain entries) by mapping; the last slot is the unknown image. */
    private final long[] samplesByMapping;
    /**
     * Samples by mapping whose PC lay outside every symbol of the image's loaded table: a few are
     * normal, all of them mean the table is of another build of the image. Never reset by --reset:
     * they are the session's, for its notes.
     */
    private final long[] outsideSymbols;
    /** Samples by mapping while its table was loaded (the base of {@link #outsideSymbols}). */
    private final long[] withTable;
    private final long[] samplesByMode = new long[3];
    private long samples;
    /** Mapping of the last {@link #resolve} call, -1 for an unknown PC. */
    private int lastMapping;
    /** Whether the last {@link #resolve} call looked the PC up in a loaded table; and found no symbol. */
    private boolean lastHadTable;
    private boolean lastOutside;

    /** Where an image's symbol problems are reported, once per session and file. */
    interface ProblemLog {
        void symbolProblem(String location, String message);
    }

    DomainView(int domid, List<Mapping> memoryMap, Dictionary dictionary, SymbolTables symbolTables,
            ProblemLog problems) {
        this.domid = domid;
        this.dictionary = dictionary;
        this.symbolTables = symbolTables;
        this.problems = problems;
        List<Mapping> sorted = new ArrayList<>(memoryMap);
        sorted.sort((a, b) -> Long.compareUnsigned(a.start(), b.start()));
        int n = sorted.size();
        starts = new long[n];
        ends = new long[n];
        mappings = sorted.toArray(new Mapping[0]);
        for (int i = 0; i < n; i++) {
            starts[i] = mappings[i].start();
            ends[i] = mappings[i].end();
        }
        tables = new SymbolTable[n];
        tableState = new byte[n];
        tableGeneration = new int[n];
        imageIds = new int[n];
        Arrays.fill(imageIds, -1);
        symbolIds = new int[n][];
        samplesByMapping = new long[n + 1];
        outsideSymbols = new long[n];
        withTable = new long[n];
    }

    /** Index of the mapping holding {@code pc}, or -1: the last range starting at or below it, if it ends above. */
    int mappingIndex(long pc) {
        return AddressRanges.holding(starts, ends, starts.length, pc);
    }

    /** Packs an image id and a symbol id into one long (no allocation on the sample path). */
    static long pack(int image, int symbol) {
        return ((long) image << 32) | (symbol & 0xFFFF_FFFFL);
    }

    static int image(long packed) {
        return (int) (packed >> 32);
    }

    static int symbol(long packed) {
        return (int) packed;
    }

    /**
     * Whether a mapping holds code of a mode, as OProfile looked PCs up: Xen-mode samples in the
     * hypervisor image, kernel-mode samples in the kernel and its modules, user-mode samples in the
     * process mappings. A PC outside its mode's space (a sample whose mode was latched wrongly, as
     * a misread MMCRA gives on a PowerPC) is unknown there, not attributed to the image whose range
     * it happens to fall in.
     */
    /**
     * OProfile's rule for IBS samples (see {@link SampleView#ibsMode}): the daemon looked a kernel
     * or Xen sample up among the kernel images by address (vmlinux, the modules, then Xen's image:
     * find_kernel_image), and took a user sample whose address lies in one of them as kernel. So an
     * address in Xen's image is xen, one in the kernel or a module kernel, whatever the logged mode;
     * any other address keeps it.
     */
    @Override
    public int ibsMode(long pc, int mode) {
        int m = mappingIndex(pc);
        ImageKind kind = m < 0 ? null : mappings[m].kind();
        if (kind == ImageKind.HYPERVISOR) {
            return 2;
        }
        if (kind == ImageKind.KERNEL || kind == ImageKind.MODULE) {
            return 1;
        }
        return mode;
    }

    static boolean holdsMode(ImageKind kind, int mode) {
        if (kind == null || mode < 0) {
            return true;
        }
        return switch (kind) {
            case HYPERVISOR -> mode >= 2;
            case KERNEL, MODULE -> mode == 1;
            case USER -> mode == 0;
            case UNKNOWN -> true;
        };
    }

    /** Resolves a PC sampled in {@code mode} to (image id, symbol id), remembering its mapping for the tallies. */
    long resolve(long pc, int mode) {
        int m = mappingIndex(pc);
        if (m >= 0 && !holdsMode(mappings[m].kind(), mode)) {
            m = -1;
        }
        lastMapping = m;
        lastHadTable = false;
        lastOutside = false;
        if (m < 0) {
            if (unknownImage < 0) {
                unknownImage = dictionary.addImage(UNKNOWN_IMAGE, ImageKind.UNKNOWN, domid);
            }
            return pack(unknownImage, SessionDictionary.NO_SYMBOL);
        }
        int img = imageIds[m];
        if (img < 0) {
            Mapping map = mappings[m];
            img = dictionary.addImage(map.image(), map.kind() == null ? ImageKind.UNKNOWN : map.kind(), domid);
            imageIds[m] = img;
            placeElfImage(map, img);
        }
        SymbolTable t = table(m);
        if (t == null) {
            return pack(img, SessionDictionary.NO_SYMBOL);
        }
        int s = t.lookup(pc - mappings[m].loadBias());
        lastHadTable = true;
        if (s < 0) {
            lastOutside = true;
            return pack(img, SessionDictionary.NO_SYMBOL);
        }
        int[] ids = symbolIds[m];
        int id = ids[s];
        if (id < 0) {
            id = dictionary.addSymbol(t.name(s), img);
            ids[s] = id;
        }
        return pack(img, id);
    }

    /**
     * An image whose symbols come from a real ELF file on this machine (a scenario's
     * {@code format=elf} image) gets its file and its place in the domain's address space in the
     * dictionary, so that its samples can be annotated: a pc is at link-time address
     * {@code pc - loadBias}, which is the file offset {@code pc - start + (start - loadBias)} for
     * the shared objects such scenarios load (their segments' addresses equal their offsets).
     */
    private void placeElfImage(Mapping map, int img) {
        ImageSource source = map.symbols();
        if (source == null || !"elf".equals(source.format()) || source.location() == null
                || !source.location().startsWith("/") || Long.compareUnsigned(map.start(), map.loadBias()) < 0) {
            return;
        }
        dictionary.imageFile(img, source.location());
        dictionary.addMapping(domid, SampleBatch.UNKNOWN, img, map.start(), map.end(), map.start() - map.loadBias());
    }

    @Override
    public int domid() {
        return domid;
    }

    @Override
    public long resolveCaller(long pc, int mode) {
        return resolve(pc, mode);
    }

    /** Resolves a sampled PC and counts it for this domain's tallies. */
    @Override
    public long resolveSample(long pc, int mode) {
        long packed = resolve(pc, mode);
        samplesByMapping[lastMapping < 0 ? samplesByMapping.length - 1 : lastMapping]++;
        if (lastHadTable) {
            withTable[lastMapping]++;
            if (lastOutside) {
                outsideSymbols[lastMapping]++;
            }
        }
        samplesByMode[mode < 0 ? 0 : Math.min(mode, 2)]++;
        samples++;
        return packed;
    }

    private SymbolTable table(int m) {
        byte state = tableState[m];
        if (state == TABLE_LOADED) {
            return tables[m];
        }
        if (state == TABLE_NONE) {
            return null;
        }
        if (state == TABLE_NO_RESOLVER && tableGeneration[m] == symbolTables.generation()) {
            return null;
        }
        return load(m);
    }

    private SymbolTable load(int m) {
        ImageSource source = mappings[m].symbols();
        if (source == null) {
            tableState[m] = TABLE_NONE;
            return null;
        }
        int generation = symbolTables.generation();
        try {
            SymbolTable t = symbolTables.table(source);
            tables[m] = t;
            int[] ids = new int[t.size()];
            Arrays.fill(ids, -1);
            symbolIds[m] = ids;
            tableState[m] = TABLE_LOADED;
            return t;
        } catch (SymbolFileException e) {
            tableState[m] = TABLE_NONE;
            problems.symbolProblem(source.location(), "domain " + domid + " image " + mappings[m].image()
                    + ": samples counted under the image with (no symbols): " + e.getMessage());
        } catch (SymbolTables.NoResolverException e) {
            tableState[m] = TABLE_NO_RESOLVER;
            tableGeneration[m] = generation;
            problems.symbolProblem(source.location(), "domain " + domid + " image " + mappings[m].image()
                    + ": samples counted under the image with (no symbols): " + e.getMessage());
        }
        return null;
    }

    long samples() {
        return samples;
    }

    long samplesInMode(int mode) {
        return samplesByMode[mode];
    }

    /** This domain's sample counts by image, largest first, for --status. */
    List<String> imageTallies(int limit) {
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < samplesByMapping.length; i++) {
            if (samplesByMapping[i] > 0) {
                rows.add(new long[] {i, samplesByMapping[i]});
            }
        }
        rows.sort((a, b) -> Long.compare(b[1], a[1]));
        List<String> out = new ArrayList<>();
        for (long[] r : rows.subList(0, Math.min(limit, rows.size()))) {
            int i = (int) r[0];
            String name = i == mappings.length ? UNKNOWN_IMAGE : mappings[i].image();
            out.add(String.format("%8d  %5.1f%%  %s", r[1], 100.0 * r[1] / Math.max(1, samples), name));
        }
        return out;
    }

    /**
     * For the session's notes, one line per image some of whose samples fell outside every symbol of
     * its table: how many, and, when none resolved, that the symbol file is likely of another build
     * (another kernel's System.map resolves nothing).
     */
    List<String> outsideSymbolNotes(String domain) {
        List<String> out = new ArrayList<>();
        for (int m = 0; m < mappings.length; m++) {
            long outside = outsideSymbols[m];
            if (outside == 0) {
                continue;
            }
            long all = withTable[m];
            String file = mappings[m].symbols() == null ? "its symbol file" : mappings[m].symbols().location();
            String image = mappings[m].image();
            if (outside == all) {
                out.add(domain + " image " + image + ": none of its " + all + " sample(s) fell inside a symbol of "
                        + file + ", so the report names no function of it: the file is likely not of the " + image
                        + " this domain runs (a System.map or kallsyms of another kernel, or another build); give"
                        + " the symbol file of the image that runs");
            } else {
                out.add(domain + " image " + image + ": " + outside + " of its " + all + " sample(s) fell outside"
                        + " every symbol of " + file + " and are counted under the image with no symbol; if most"
                        + " of them do, the file may be of another build of " + image);
            }
        }
        return out;
    }

    /** --reset: forget this domain's tallies (ids stay valid: consumers may hold batches using them). */
    void resetTallies() {
        Arrays.fill(samplesByMapping, 0);
        Arrays.fill(samplesByMode, 0);
        samples = 0;
    }
}

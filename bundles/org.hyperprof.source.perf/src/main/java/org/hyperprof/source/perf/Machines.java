package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.SymbolTable;
import org.hyperprof.pipeline.AddressRanges;
import org.hyperprof.pipeline.Dictionary;

/**
 * The machines of a recording and what runs in them, and the resolution of an address to an image
 * and a symbol.
 *
 * <h2>Machines and domains</h2>
 * The host is domain 0 ({@code host}): its kernel and its processes. Samples perf tagged
 * hypervisor (cpumode 3) are host-domain samples in hypervisor mode. Each guest, told apart by the
 * pid of the QEMU process that ran it (as perf kvm does: the sample's pid for guest samples), is a
 * domain of its own ({@code guest-<pid>}, ids from 1 in order of appearance), its kernel image named
 * as perf kvm names it, {@code [guest.kernel.kallsyms.<pid>]}. Guest user space has no maps perf
 * could see, so it resolves to {@code [unknown]}.
 *
 * <h2>Processes</h2>
 * MMAP and MMAP2 records build each process's maps (keyed by pid: the threads of a process share
 * them); FORK of a new process copies the parent's maps; COMM names the process. A user address
 * resolves in the sample's process: the mapping's image at file offset {@code ip - start + pgoff}.
 * Kernel addresses resolve in the kernel's kallsyms table, whose {@code [module]} column splits out
 * module images ({@code [e1000]}) as perf does.
 *
 * <p>{@link #resolve} leaves its answer in {@link #image}, {@link #symbol}, {@link #selfFrame()}
 * and {@link #rawFrame()} and allocates nothing once an image and symbol have their ids.
 */
final class Machines {

    /** The host's domain id. */
    static final int HOST_DOMAIN = 0;
    /** perf's pid for the host machine. */
    static final int HOST_PID = -1;

    final class Guest {
        final int pid;
        final int domain;
        final Dso kernel;
        final Dso user;

        Guest(int pid, int domain) {
            this.pid = pid;
            this.domain = domain;
            this.kernel = new Dso("[guest.kernel.kallsyms." + pid + "]", Dso.Kind.KERNEL, domain, ImageKind.KERNEL,
                    pid);
            this.kernel.buildId = info.buildId(pid, "[guest.kernel.kallsyms]");
            this.user = new Dso("[unknown]", Dso.Kind.NONE, domain, ImageKind.UNKNOWN, pid);
        }
    }

    private final Dictionary dictionary;
    private final Symbolizer symbolizer;
    private final RecordingInfo info;

    private final IntObjectMap<ProcessMaps> processes = new IntObjectMap<>(256);
    private final IntObjectMap<String> comms = new IntObjectMap<>(256);
    private final Map<String, Dso> hostDsos = new HashMap<>();
    private final List<Dso> allDsos = new ArrayList<>();
    final Dso hostKernel;
    private final Dso hostUnknown;
    private final Dso hypervisor;
    private long kernelStart;
    private long kernelEnd;
    private final IntObjectMap<Guest> guests = new IntObjectMap<>(8);
    private final Map<Integer, String> domains = new LinkedHashMap<>();
    private int nextDomain = 1;

    /*
     * The processes looked up last, by pid: samples come in runs of one process on each CPU, and
     * the CPUs' samples interleave in time order, so one "last process" would miss nearly always.
     */
    private static final int RECENT = 16;
    private final int[] recentPid = new int[RECENT];
    private final ProcessMaps[] recentMaps = new ProcessMaps[RECENT];

    // The answer of resolve().
    int image;
    int symbol;
    /** The image-relative address a lookup found (perf's key of a sample's own frame without symbol). */
    private long rel;
    /**
     * Whether the last lookup's address lay outside its image's code ({@link ElfImage#inCode}):
     * kept with it in the caches (bit 63 of the image and symbol word; image ids are never negative).
     */
    boolean outside;


    /**
     * A direct-mapped cache of resolved addresses by (address, process, context): hot code is hit
     * again and again, and a hit skips the process, mapping and symbol lookups. A change of a
     * process's maps (MMAP, FORK) raises that process's generation (in {@link #pidGeneration}),
     * which makes its entries stale at once and leaves every other process's and the kernel's
     * entries valid (a script that forks and execs thousands of short commands would otherwise
     * empty the cache at each of them); a change of the kernel's map empties the whole cache.
     */
    private static final int CACHE_SIZE = 1 << 14;
    /**
     * Four longs per entry, one cache line for two entries: the address; the process key and the
     * tag (high and low halves); the image and the symbol; the sample-frame and the
     * callchain-frame report keys.
     */
    private final long[] cache = new long[CACHE_SIZE * 4];
    /**
     * Generations by process key (pid, or {@link #HOST_PID} for the kernel) modulo
     * {@link #PID_SLOTS}: processes sharing a slot only make each other's entries stale, since a
     * tag also holds the whole key. Tags are generation << 3 | cpumode; generations start at 1,
     * so a zeroed entry never matches.
     */
    private static final int PID_SLOTS = 1 << 16;
    private final int[] pidGeneration = new int[PID_SLOTS];
    /** The last generation handed out; every raise takes a new one, so a stale tag never comes back. */
    private int lastGeneration = 1;
    /** Kept below this so that generation << 3 fits the tag's 32 bits; reaching it empties the cache. */
    private static final int MAX_GENERATION = 1 << 28;
    private int selfKey;
    /** The callchain-entry key, or {@link #NO_FRAME} until {@link #rawFrame()} first needs it. */
    private int rawKey;
    /** The cache entry and address of the last {@link #resolve}: where {@link #rawFrame()} keeps a key made late. */
    private int lastEntry;
    private long lastIp;
    /**
     * Whether callchain-entry keys are wanted: only a callchain's entries (and a sample's own
     * address repeated as its first entry) use them. Without callchains every frame without a
     * symbol would otherwise be numbered once per process at its run-time address, for nothing.
     */
    private boolean rawFrames = true;
    private static final int NO_FRAME = Integer.MIN_VALUE;

    /**
     * A second direct-mapped cache, by (image, file-relative address): the same code mapped by many
     * processes (every md5sum of an xargs run, every user of libc) is resolved once. An image's
     * symbols never change once looked for, so its entries never go stale. Four longs per entry:
     * the address, the image's serial, image and symbol, the sample-frame key.
     */
    private static final int IMAGE_CACHE_SIZE = 1 << 14;
    private final long[] imageCache = new long[IMAGE_CACHE_SIZE * 4];
    /** The arrays processes' mapping lists are rebuilt into (see {@link ProcessMaps.Spare}). */
    private final ProcessMaps.Spare spareMaps = new ProcessMaps.Spare();
    private int nextDsoSerial = 1;

    // Counts.
    long mmapsIgnored;
    /**
     * Kernel addresses with samples outside the kernel's map (a few are kept): named by a kernel
     * symbol all the same, or unnamed. perf names such an address only where a map covers it, and
     * there by the kernel's data symbols too, so a corrupt address may be named otherwise by perf.
     */
    final java.util.SortedSet<Long> outsideKernelMap = new java.util.TreeSet<>(Long::compareUnsigned);
    /** Whether host kernel samples came before (or without) the kernel's map record. */
    boolean kernelWithoutMap;
    /** Whether any of {@link #outsideKernelMap} was named by a kernel symbol. */
    boolean namedOutsideKernelMap;

    /** The start of the kernel's own last symbol (not a module's), found once. */
    private long lastKernelSymbol(Dso k, SymbolTable t) {
        if (lastKernelSymbol == 0) {
            long last = -1L;
            for (int i = 0; i < t.size(); i++) {
                if (t.module(i) == null && (last == -1L || Long.compareUnsigned(t.start(i), last) > 0)) {
                    last = t.start(i);
                }
            }
            lastKernelSymbol = last == -1L ? 1 : last;
        }
        return lastKernelSymbol;
    }

    private long lastKernelSymbol;

    private boolean outsideKernelMap(long ip) {
        return kernelEnd != 0
                && (Long.compareUnsigned(ip, kernelStart) < 0 || Long.compareUnsigned(ip, kernelEnd) >= 0);
    }

    private void outsideKernelMap(long ip, boolean named) {
        namedOutsideKernelMap |= named;
        if (outsideKernelMap.size() < 1000) {
            outsideKernelMap.add(ip);
        }
    }
    /**
     * The processes with user samples for which no mapping was made (a few are named): perf looks
     * a sample's thread up by its tid, so a corrupt pid can name a process this import does not
     * know while perf still finds the thread's.
     */
    final java.util.SortedSet<Integer> unmappedProcesses = new java.util.TreeSet<>();

    private void unmappedProcess(int pid) {
        if (unmappedProcesses.size() < 1000) {
            unmappedProcesses.add(pid);
        }
    }

    Machines(Dictionary dictionary, Symbolizer symbolizer, RecordingInfo info) {
        java.util.Arrays.fill(recentPid, Integer.MIN_VALUE);
        this.dictionary = dictionary;
        this.symbolizer = symbolizer;
        this.info = info;
        this.mappingFeed = new MappingFeed(dictionary);
        this.hostKernel = new Dso("[kernel.kallsyms]", Dso.Kind.KERNEL, HOST_DOMAIN, ImageKind.KERNEL, HOST_PID);
        this.hostKernel.buildId = info.buildId(HOST_PID, "[kernel.kallsyms]");
        this.hostUnknown = new Dso("[unknown]", Dso.Kind.NONE, HOST_DOMAIN, ImageKind.UNKNOWN, HOST_PID);
        this.hypervisor = new Dso("[hypervisor]", Dso.Kind.NONE, HOST_DOMAIN, ImageKind.HYPERVISOR, HOST_PID);
        allDsos.add(hostKernel);
        domains.put(HOST_DOMAIN, "host");
        java.util.Arrays.fill(pidGeneration, 1);
        // perf report's idle thread (machine__idle_thread) is named before any record.
        threads.find(0, 0);
        threads.name("swapper", dictionary);
    }

    /**
     * Starts loading, alongside the reading, the symbols nearly every import needs: the host
     * kernel's (when the events count kernel mode) and those of the host images the build-id table
     * lists (perf writes it for the images that have samples).
     */
    void prefetch(boolean kernel) {
        if (kernel) {
            symbolizer.prefetch(hostKernel);
        }
        for (RecordingInfo.BuildId b : info.buildIds) {
            String f = b.filename();
            boolean jitMap = f.startsWith("/tmp/perf-") && f.endsWith(".map");
            if (b.pid() == HOST_PID && b.cpumode() == CPUMODE_USER && f.startsWith("/") && !jitMap) {
                symbolizer.prefetch(hostDso(HOST_PID, new RecordBatch.Mmap(CPUMODE_USER, HOST_PID, HOST_PID, 0, 0, 0, f,
                        PROT_EXEC, 0, b.id())));
            }
        }
    }

    /** Domain id to name: the host and every guest seen (or announced) so far. */
    Map<Integer, String> domains() {
        return Map.copyOf(domains);
    }

    /** The guest run by QEMU process {@code pid}, made on first sight. */
    Guest guest(int pid) {
        Guest g = guests.get(pid);
        if (g == null) {
            g = new Guest(pid, nextDomain++);
            guests.put(pid, g);
            String comm = comms.get(pid);
            domains.put(g.domain, "guest-" + pid + (comm != null ? " (" + comm + ")" : ""));
            allDsos.add(g.kernel);
        }
        return g;
    }

    /** Every image that can hold samples, for the end-of-import notes. */
    List<Dso> dsos() {
        List<Dso> out = new ArrayList<>(allDsos);
        out.add(hostUnknown);
        out.add(hypervisor);
        return out;
    }

    String comm(int pid) {
        return comms.get(pid);
    }

    // ---------------------------------------------------------------- side-band records

    /**
     * A mapping. perf gives every mapping whose cpumode is not a kernel's to the process, data
     * mappings too (a sample's address is looked up among all of a process's mappings), and takes
     * a host kernel map for the kernel's own when its name starts as {@code [kernel.kallsyms]}
     * does (all but the bracket), its reference symbol being whatever follows those 17 characters.
     */
    void mmap(RecordBatch.Mmap m) {
        int cpumode = m.cpumode();
        int pid = m.pid();
        int tid = m.tid();
        long start = m.start();
        long length = m.length();
        long pgoff = m.pgoff();
        String filename = m.filename();
        boolean user = cpumode != CPUMODE_KERNEL && cpumode != CPUMODE_GUEST_KERNEL && cpumode != CPUMODE_GUEST_USER;
        if (user) {
            // perf finds the mapping's thread by its tid: a thread met before keeps its process.
            pid = threads.find(pid, tid);
        }
        invalidate(user ? pid : HOST_PID);
        if (cpumode == CPUMODE_KERNEL) {
            if (filename.startsWith("[kernel.kallsyms")) {
                // The kernel's own map: "[kernel.kallsyms]_text", pgoff = the reference symbol's address.
                hostKernel.refSymbol = filename.length() > 17 ? filename.substring(17) : "";
                hostKernel.refAddress = pgoff;
                kernelStart = start;
                kernelEnd = start + length;
                mapped(hostKernel, HOST_PID, start, limit(start, length), start);
                if (pgoff != 0 && pgoff != start) {
                    kernelMapNote = "the kernel's map record maps [0x" + Long.toHexString(start) + ", 0x"
                            + Long.toHexString(start + length) + ") but gives its reference symbol "
                            + hostKernel.refSymbol + " the address 0x" + Long.toHexString(pgoff) + " (perf record"
                            + " writes the start there): the record is corrupt, and kernel samples may be named"
                            + " differently from perf report";
                }
            } else {
                // Modules resolve through kallsyms' module column; their maps only place their images.
                mmapsIgnored++;
                String module = moduleName(filename);
                if (module != null) {
                    mapped(hostModule(module, filename), HOST_PID, start, limit(start, length), start);
                }
            }
            return;
        }
        if (cpumode == CPUMODE_GUEST_KERNEL) {
            Dso kernel = guest(pid).kernel;
            int bracket = filename.indexOf("]_");
            if (filename.startsWith("[") && bracket > 0) {
                kernel.refSymbol = filename.substring(bracket + 1);
                kernel.refAddress = pgoff;
                mapped(kernel, HOST_PID, start, limit(start, length), start);
            } else {
                mmapsIgnored++;
            }
            return;
        }
        if (!user) {
            mmapsIgnored++; // a guest's user space: perf kvm sees no maps there
            return;
        }
        Dso dso = hostDso(pid, m);
        long offset = dso.mappedOffset(start, pgoff);
        process(pid, true).map(start, length, offset, dso, spareMaps);
        if ((m.prot() & PROT_EXEC) != 0 && length != 0 && Long.compareUnsigned(start + length, start) > 0) {
            mapped(dso, pid, start, start + length, offset);
        }
    }

    // ---------------------------------------------------------------- mappings for the session

    /*
     * The session learns where its images lay (ImageMapping): each executable mapping as its record
     * came, for the process whose record it was (a forked child's are its parent's, which the FORK
     * copied), the kernel's and its modules' for every process (pid -1). Only images a sample named
     * get theirs: an image's mappings wait in its PendingMappings until then (MappingFeed keeps
     * the dictionary's order right when they come late). Kernels and modules have no file here
     * (kallsyms names their symbols by address): their mappings give the start as the file
     * offset, so that pc - start + fileOffset is the address itself.
     */

    /** The end of a map record's range; perf's kernel map may reach the top of the address space. */
    private static long limit(long start, long length) {
        long end = start + length;
        return Long.compareUnsigned(end, start) < 0 ? -1L : end;
    }

    private final MappingFeed mappingFeed;

    /** Image {@code d} lay at {@code [start, limit)} of process {@code pid}: told now, or once it is named. */
    private void mapped(Dso d, int pid, long start, long limit, long fileOffset) {
        long seq = mappingFeed.record();
        if (d.imageId >= 0) {
            mappingFeed.tell(d.domain, pid, d.imageId, start, limit, fileOffset, seq);
            return;
        }
        if (d.pendingMappings == null) {
            d.pendingMappings = new PendingMappings();
        }
        d.pendingMappings.add(new PendingMappings.Mapping(seq, pid, -1, start, limit, fileOffset));
    }

    /** Tells the session what it learnt of image {@code d} before naming it: its build-id and mappings. */
    private void named(Dso d, int id) {
        if (d.buildId != null) {
            dictionary.buildId(id, d.buildId);
        }
        if (d.pendingMappings != null) {
            mappingFeed.tellLate(d.pendingMappings, d.domain, id);
            d.pendingMappings = null;
        }
    }

    /**
     * The module a kernel map record places, as kallsyms' module column names it (perf's
     * kmod_path__parse): {@code [e1000]} as it is, a path's base name up to {@code .ko} with
     * dashes made underscores; null for anything else.
     */
    static String moduleName(String filename) {
        if (filename.startsWith("[") && filename.endsWith("]") && filename.length() > 2) {
            return filename.substring(1, filename.length() - 1);
        }
        int slash = filename.lastIndexOf('/');
        String base = filename.substring(slash + 1);
        int ko = base.indexOf(".ko");
        if (ko <= 0 || (ko + 3 < base.length() && base.charAt(ko + 3) != '.')) {
            return null;
        }
        return base.substring(0, ko).replace('-', '_');
    }

    /** Host modules' images, by module name: what {@link #moduleImage} names when a sample hits one. */
    private final Map<String, Dso> hostModules = new HashMap<>();

    private Dso hostModule(String module, String filename) {
        Dso d = hostModules.get(module);
        if (d == null) {
            d = new Dso("[" + module + "]", Dso.Kind.KERNEL, HOST_DOMAIN, ImageKind.MODULE, HOST_PID);
            d.buildId = info.buildId(HOST_PID, filename);
            hostModules.put(module, d);
            Integer id = moduleImages.get(HOST_DOMAIN + "/" + module);
            if (id != null) {
                d.imageId = id;
                named(d, id);
            }
        }
        return d;
    }

    /** Why the kernel's map record is doubtful, or null. */
    String kernelMapNote;

    /** Each thread's process, as perf finds it by the thread's tid. */
    final Threads threads = Threads.withIdle();

    void comm(int pid, int tid, String comm) {
        threads.find(pid, tid);
        threads.name(comm, dictionary);
        if (pid == tid || comms.get(pid) == null) {
            comms.put(pid, comm);
            Guest g = guests.get(pid);
            if (g != null) {
                domains.put(g.domain, "guest-" + pid + " (" + comm + ")");
            } else {
                dictionary.nameProcess(HOST_DOMAIN, pid, comm);
            }
        }
        process(pid, true);
    }

    /**
     * FORK of task {@code tid} of process {@code pid} from thread {@code ptid} of process
     * {@code ppid}. perf makes both threads anew in those processes, and copies the parent's maps
     * for a new process unless perf record wrote the FORK itself for a task that ran before it
     * ({@code exec}: its maps follow).
     */
    void fork(int pid, int ppid, int tid, int ptid, boolean exec) {
        invalidate(pid);
        threads.parent(ptid, ppid);
        threads.make(tid, pid);
        threads.inheritName(tid, ptid, dictionary);
        if (pid == ppid) {
            return; // a new thread shares its process's maps
        }
        ProcessMaps parent = exec ? null : processes.get(ppid);
        processes.put(pid, parent != null ? parent.copy() : new ProcessMaps());
        String comm = comms.get(ppid);
        if (comm != null) {
            comms.put(pid, comm);
            if (guests.get(pid) == null) {
                dictionary.nameProcess(HOST_DOMAIN, pid, comm);
            }
        }
        if (recentPid[pid & (RECENT - 1)] == pid) {
            recentPid[pid & (RECENT - 1)] = Integer.MIN_VALUE;
        }
    }

    /** Makes the cache forget what it knows of process {@code pid} (or everything, for the kernel). */
    private void invalidate(int pid) {
        if (pid < 0 || lastGeneration == MAX_GENERATION) {
            // The kernel's map (or a process the recording does not name) changed: forget everything.
            java.util.Arrays.fill(cache, 0L);
            java.util.Arrays.fill(pidGeneration, 1);
            lastGeneration = 1;
            return;
        }
        pidGeneration[pid & (PID_SLOTS - 1)] = ++lastGeneration;
    }

    private ProcessMaps process(int pid, boolean create) {
        int slot = pid & (RECENT - 1);
        if (recentPid[slot] == pid && (recentMaps[slot] != null || !create)) {
            return recentMaps[slot];
        }
        ProcessMaps m = processes.get(pid);
        if (m == null && create) {
            m = new ProcessMaps();
            processes.put(pid, m);
        }
        recentPid[slot] = pid;
        recentMaps[slot] = m;
        return m;
    }

    /** Anonymous memory, which perf names {@code /tmp/perf-PID.map} (where a JIT writes its symbols). */
    /** Anonymous memory (perf's is_anon_memory, or a huge-page mapping), or memory perf knows has no file. */
    private static boolean withoutFile(RecordBatch.Mmap m) {
        String f = m.filename();
        return f.equals("//anon") || f.startsWith("/dev/zero") || f.startsWith("/anon_hugepage")
                || (m.flags() & MAP_HUGETLB) != 0 || f.startsWith("[stack") || f.startsWith("/SYSV")
                || f.equals("[heap]");
    }

    /**
     * The name of the host image a mapping in process {@code pid} belongs to (perf's map__new):
     * executable memory without a file is named {@code /tmp/perf-PID.map}, where a JIT writes its
     * symbols.
     */
    static String hostImageName(int pid, RecordBatch.Mmap m) {
        return withoutFile(m) && (m.prot() & PROT_EXEC) != 0 ? "/tmp/perf-" + pid + ".map" : m.filename();
    }

    /** The kind of the host image a mapping belongs to. */
    static Dso.Kind hostImageKind(RecordBatch.Mmap m) {
        String f = m.filename();
        if (withoutFile(m)) {
            return (m.prot() & PROT_EXEC) != 0 ? Dso.Kind.ANON : Dso.Kind.NO_FILE;
        } else if (f.equals("[vdso]")) {
            return Dso.Kind.VDSO;
        } else if (f.startsWith("[")) {
            return Dso.Kind.NO_FILE;
        }
        return Dso.Kind.FILE;
    }

    /** The host image for a mapping, made on first sight (perf's naming of special maps). */
    private Dso hostDso(int pid, RecordBatch.Mmap m) {
        String filename = m.filename();
        String buildId = m.buildId();
        String name = hostImageName(pid, m);
        Dso d = hostDsos.get(name);
        if (d == null) {
            d = new Dso(name, hostImageKind(m), HOST_DOMAIN, ImageKind.USER, HOST_PID);
            d.buildId = buildId != null ? buildId : info.buildId(HOST_PID, filename);
            hostDsos.put(name, d);
            allDsos.add(d);
        } else if (d.buildId == null && buildId != null) {
            d.buildId = buildId;
            if (d.imageId >= 0) {
                dictionary.buildId(d.imageId, buildId);
            }
        }
        return d;
    }

    // ---------------------------------------------------------------- resolution

    /**
     * Resolves {@code ip} in context {@code cpumode} (a sample's cpumode, or the mode a callchain
     * marker switched to) for process {@code pid}.
     */
    void resolve(int cpumode, int pid, long ip) {
        // Kernel and hypervisor addresses mean the same in every process of a machine.
        int key = cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_HYPERVISOR ? HOST_PID : pid;
        long h = (ip ^ ((long) key << 40) ^ cpumode) * 0x9E3779B97F4A7C15L;
        int e = ((int) (h >>> 50) & (CACHE_SIZE - 1)) << 2;
        long keyTag = ((long) key << 32) | (((pidGeneration[key & (PID_SLOTS - 1)] << 3) | cpumode) & 0xFFFFFFFFL);
        long[] c = cache;
        lastEntry = e;
        lastIp = ip;
        if (c[e] == ip && c[e + 1] == keyTag) {
            long is = c[e + 2];
            long frames = c[e + 3];
            image = (int) (is >>> 32) & Integer.MAX_VALUE;
            outside = is < 0;
            symbol = (int) is;
            selfKey = (int) (frames >>> 32);
            rawKey = (int) frames;
            if (symbol < 0) {
                unresolved(image);
            }
            return;
        }
        selfKey = NO_FRAME;
        outside = false;
        lookup(cpumode, pid, ip);
        if (symbol < 0) {
            unresolved(image);
            if (selfKey == NO_FRAME) {
                selfKey = dictionary.address(image, rel);
            }
            // The run-time key is numbered when a callchain entry first needs it: most addresses
            // without a symbol are met as samples' own addresses only (see rawFrame).
            rawKey = rel == ip || !rawFrames ? selfKey : NO_FRAME;
        } else {
            selfKey = symbol;
            rawKey = symbol;
        }
        c[e] = ip;
        c[e + 1] = keyTag;
        c[e + 2] = ((long) image << 32) | (symbol & 0xFFFFFFFFL) | (outside ? Long.MIN_VALUE : 0);
        c[e + 3] = ((long) selfKey << 32) | (rawKey & 0xFFFFFFFFL);
    }

    // ---------------------------------------------------------------- deferred resolution

    /*
     * A flat import need not resolve every sample, nor wait for symbol tables still loading: each
     * sample's address is taken as far as no symbol table is needed (the process's mapping, in time
     * order, gives the image and file-relative address) and counted by that key; at the end each
     * distinct key is resolved once, in the order the keys were first met, which is the order the
     * samples would have been resolved in: images, symbols and frames without symbol get the same
     * ids, and each frame the same level letter. Memory is bounded by the distinct keys.
     */
    private static final byte KEY_IN = 0;
    private static final byte KEY_NONE = 1;
    private static final byte KEY_KERNEL = 2;
    /** Keyed by (the image's serial, or minus the key kind; the address). */
    private final AddressCounts keys = new AddressCounts(1024);
    /** Images by serial, for the deferred keys. */
    private Dso[] dsoBySerial = new Dso[64];

    /**
     * Counts a host user or kernel sample by its key, without looking at any symbol table; false
     * (nothing counted) for a sample of another mode, which must be resolved with {@link #resolve}.
     */
    boolean defer(int cpumode, int pid, long ip, long period) {
        return defer(cpumode, pid, ip, 1, period);
    }

    /** {@link #defer(int, int, long, long)} for {@code samples} samples at one address, of {@code period} in all. */
    boolean defer(int cpumode, int pid, long ip, long samples, long period) {
        return defer(cpumode, pid, ip, samples, period, 0, 0);
    }

    /**
     * {@link #defer(int, int, long, long, long)} counted apart for each {@code process} (a number of
     * the caller's: a report by process counts its samples by (process, address key));
     * {@code first} is handed on with a key of the first sample that met it.
     */
    boolean defer(int cpumode, int pid, long ip, long samples, long period, int process, long first) {
        byte kind;
        Dso d;
        long address;
        if (cpumode == CPUMODE_USER) {
            ProcessMaps maps = process(pid, false);
            d = maps == null ? null : maps.find(ip);
            if (d == null) {
                if (maps == null) {
                    unmappedProcess(pid);
                }
                kind = KEY_NONE;
                address = ip;
            } else {
                kind = KEY_IN;
                address = d.identity() ? ip : ip - maps.foundStart + maps.foundPgoff;
                if (d.serial == 0) {
                    serial(d);
                }
            }
        } else if (cpumode == CPUMODE_KERNEL) {
            kind = KEY_KERNEL;
            d = hostKernel;
            address = ip;
        } else {
            return false;
        }
        keys.add(((long) process << 32) | ((kind == KEY_IN ? d.serial : -kind) & 0xFFFFFFFFL), address, samples,
                period, first);
        return true;
    }

    /**
     * Counts {@code samples} host user samples of {@code period} in all at {@code address} of host
     * image {@code image} (file-relative, or absolute for an image without a file), as
     * {@link #defer} would have for samples whose mapping it found there.
     */
    void deferIn(Dso image, long address, long samples, long period) {
        if (image.serial == 0) {
            serial(image);
        }
        keys.add(image.serial, address, samples, period);
    }

    /** The host image of this name, which a mapping made known. */
    Dso hostImage(String name) {
        Dso d = hostDsos.get(name);
        if (d == null) {
            throw new IllegalStateException("no mapping made host image " + name + " known");
        }
        return d;
    }

    /** Keys counted by {@link #defer} and not yet resolved. */
    int deferred() {
        return keys.size();
    }

    /**
     * Receives each deferred key once resolved: its sample frame, cpumode, samples and period, and
     * the process and first sample it was deferred with (0 and 0 by default).
     */
    interface Resolved {
        void frame(int selfFrame, int cpumode, long samples, long period, int process, long first);
    }

    /**
     * Resolves the deferred keys in the order first met (waiting for symbols still loading) and
     * forgets them; hands each on.
     */
    void resolveDeferred(Resolved to) {
        keys.drain((processAndKind, address, count, period, firstSample) -> {
            selfKey = NO_FRAME;
            outside = false;
            int cpumode = CPUMODE_USER;
            int first = (int) processAndKind;
            if (first > 0) {
                in(dsoBySerial[first], address);
            } else if (first == -KEY_NONE) {
                none(hostUnknown, address);
            } else {
                kernel(hostKernel, address, hostUnknown);
                cpumode = CPUMODE_KERNEL;
            }
            if (outside) {
                sampleOutside(count);
            }
            if (symbol < 0) {
                unresolved(image, count);
                if (selfKey == NO_FRAME) {
                    selfKey = dictionary.address(image, rel);
                }
            } else {
                selfKey = symbol;
            }
            to.frame(selfKey, cpumode, count, period, (int) (processAndKind >>> 32), firstSample);
        });
    }

    /** Gives an image its serial (the deferred keys' and the image cache's name for it). */
    private void serial(Dso d) {
        int serial = nextDsoSerial++;
        d.serial = serial;
        if (serial == dsoBySerial.length) {
            dsoBySerial = java.util.Arrays.copyOf(dsoBySerial, serial * 2);
        }
        dsoBySerial[serial] = d;
    }

    /**
     * The report key of the last resolved address as a sample's own frame: its symbol id, or for
     * no symbol the dictionary's address symbol of (image, image-relative address), perf's key.
     */
    int selfFrame() {
        return selfKey;
    }

    /**
     * The report key of the last resolved address as a callchain entry: its symbol id, or for no
     * symbol the dictionary's address symbol of (image, run-time address), as perf keys callchain entries.
     */
    int rawFrame() {
        if (rawKey == NO_FRAME) {
            // Numbered now, and kept in the cache entry the last resolve found or made, which is this address's.
            rawKey = dictionary.address(image, lastIp);
            long[] c = cache;
            c[lastEntry + 3] = (c[lastEntry + 3] & 0xFFFFFFFF00000000L) | (rawKey & 0xFFFFFFFFL);
        }
        return rawKey;
    }

    /**
     * Tells whether {@link #rawFrame()} must be the callchain key (the default); off for an
     * import without callchains, where it is then the same as {@link #selfFrame()}. Before the
     * first {@link #resolve}.
     */
    void rawFrames(boolean wanted) {
        this.rawFrames = wanted;
    }

    private long[] unresolvedPerImage = new long[64];

    private void unresolved(int img) {
        unresolved(img, 1);
    }

    private void unresolved(int img, long n) {
        if (img >= unresolvedPerImage.length) {
            unresolvedPerImage = java.util.Arrays.copyOf(unresolvedPerImage, Math.max(img + 1, unresolvedPerImage.length * 2));
        }
        unresolvedPerImage[img] += n;
    }

    private long[] outsidePerImage = new long[64];
    /** The first file offset outside code met in each image, by image id (rare: corrupt or changed). */
    private final Map<Integer, Long> firstOutside = new HashMap<>();

    /** Counts {@code n} samples at the last resolved address, which lies outside its image's code. */
    void sampleOutside(long n) {
        if (image >= outsidePerImage.length) {
            outsidePerImage = java.util.Arrays.copyOf(outsidePerImage, Math.max(image + 1, outsidePerImage.length * 2));
        }
        outsidePerImage[image] += n;
    }

    /**
     * A note for each image with samples outside its code: perf report names such an address by
     * whatever its symbol tree holds there (a data object, say), where the import leaves it unnamed.
     */
    List<String> outsideCodeNotes() {
        List<String> notes = new ArrayList<>();
        for (Dso d : allDsos) {
            long n = d.imageId >= 0 && d.imageId < outsidePerImage.length ? outsidePerImage[d.imageId] : 0;
            if (n > 0) {
                notes.add(n + " samples in " + d.name + " lie outside its code (file offset 0x"
                        + Long.toHexString(firstOutside.getOrDefault(d.imageId, 0L)) + (n > 1 ? " and others" : "")
                        + ": no executable segment of the file holds it): left unnamed, where perf report may name"
                        + " them by a data symbol; the mapping's record (its pgoff) or the samples' addresses are"
                        + " corrupt, or the file changed since the recording");
            }
        }
        return notes;
    }

    /** The kernels met: the host's and each guest's. */
    List<Dso> kernels() {
        List<Dso> out = new ArrayList<>();
        out.add(hostKernel);
        guests.forEach(g -> out.add(g.kernel));
        return out;
    }

    /** Samples and callchain entries of an image that resolved to no symbol. */
    long unresolved(Dso d) {
        return d.imageId >= 0 && d.imageId < unresolvedPerImage.length ? unresolvedPerImage[d.imageId] : 0;
    }

    private void lookup(int cpumode, int pid, long ip) {
        switch (cpumode) {
            case CPUMODE_USER -> {
                ProcessMaps maps = process(pid, false);
                Dso d = maps == null ? null : maps.find(ip);
                if (d == null) {
                    if (maps == null) {
                        unmappedProcess(pid);
                    }
                    none(hostUnknown, ip);
                } else {
                    in(d, d.identity() ? ip : ip - maps.foundStart + maps.foundPgoff);
                }
            }
            case CPUMODE_KERNEL -> kernel(hostKernel, ip, hostUnknown);
            case CPUMODE_HYPERVISOR -> none(hypervisor, ip);
            case CPUMODE_GUEST_KERNEL -> {
                Guest g = guest(pid);
                kernel(g.kernel, ip, g.user);
            }
            case CPUMODE_GUEST_USER -> none(guest(pid).user, ip);
            default -> none(hostUnknown, ip);
        }
    }

    private void none(Dso d, long ip) {
        image = imageOf(d);
        symbol = -1;
        rel = ip;
    }

    private void kernel(Dso k, long ip, Dso outside) {
        rel = ip;
        if (k == hostKernel && kernelEnd == 0) {
            kernelWithoutMap = true;
        }
        if (!k.looked) {
            symbolizer.look(k);
        }
        SymbolTable t = k.table;
        if (t != null) {
            SymbolMemo memo = k.symbolMemo;
            if (memo == null || memo.table() != t) {
                memo = new SymbolMemo(t);
                k.symbolMemo = memo;
            }
            int idx = memo.lookup(ip - k.delta);
            if (idx >= 0) {
                linkDelta = k.delta;
                symbol = symbolId(k, idx);
                image = k.imageOfSymbol[idx];
                if (k == hostKernel && image == imageOf(k) && outsideKernelMap(ip)) {
                    outsideKernelMap(ip, true);
                }
                return;
            }
        }
        boolean inKernel = k != hostKernel || kernelEnd == 0 || !outsideKernelMap(ip);
        if (!inKernel && t != null && Long.compareUnsigned(ip - k.delta, lastKernelSymbol(k, t)) < 0) {
            // perf's kernel map reaches the kernel's last symbol (its data and init text too), where
            // it names such an address; past it (modules, trampolines) perf has no map either.
            outsideKernelMap(ip, false);
        }
        Dso d = inKernel ? k : outside;
        image = imageOf(d);
        symbol = -1;
    }

    private void in(Dso d, long address) {
        rel = address;
        if (d.serial == 0) {
            serial(d);
        }
        long serial = d.serial;
        int e = ((int) (((address * 0x9E3779B97F4A7C15L) ^ (serial * 0xC2B2AE3D27D4EB4FL)) >>> 50)
                & (IMAGE_CACHE_SIZE - 1)) << 2;
        long[] c = imageCache;
        if (c[e] == address && c[e + 1] == serial) {
            long is = c[e + 2];
            image = (int) (is >>> 32) & Integer.MAX_VALUE;
            symbol = (int) is;
            outside = is < 0;
            selfKey = (int) c[e + 3];
            return;
        }
        resolveIn(d, address);
        selfKey = symbol >= 0 ? symbol : dictionary.address(image, address);
        c[e] = address;
        c[e + 1] = serial;
        c[e + 2] = ((long) image << 32) | (symbol & 0xFFFFFFFFL) | (outside ? Long.MIN_VALUE : 0);
        c[e + 3] = selfKey;
    }

    /**
     * The lookup's address minus its link address: what turns a symbol's start from the symbol
     * table into the address space the session's symbol starts are in (perf's, of the mapped file).
     */
    private long linkDelta;

    private void resolveIn(Dso d, long address) {
        if (!d.looked) {
            symbolizer.look(d);
        }
        SymbolTable t = d.table;
        ElfImage layout = d.layout;
        outside = layout != null && !layout.inCode(address);
        if (outside) {
            firstOutside.putIfAbsent(imageOf(d), address);
        }
        long link = layout != null ? layout.linkAddress(address) : address - d.delta;
        linkDelta = address - link;
        if (layout == null || link != -1) {
            if (d.overlapFrom.length > 0 && overlap(d, link)) {
                return;
            }
            int idx = t != null ? t.lookup(link) : -1;
            // A symbol with no size in the file ends, for perf, at the next label or PLT stub.
            if ((idx < 0 || (d.zeroSized != null && d.zeroSized[idx])) && fallback(d, link, idx)) {
                return;
            }
            if (idx < 0) {
                idx = extension(d, link);
            }
            if (idx >= 0) {
                symbol = symbolId(d, idx);
                image = d.imageOfSymbol[idx];
                return;
            }
        }
        image = imageOf(d);
        symbol = -1;
    }

    /**
     * Where the image's symbols overlap, perf's tree decides ({@link PerfNaming#overlaps}): true
     * (and the answer set) when {@code link} lies in such a range.
     */
    private boolean overlap(Dso d, long link) {
        int hi = AddressRanges.holding(d.overlapFrom, d.overlapTo, d.overlapFrom.length, link);
        if (hi < 0) {
            return false;
        }
        int idx = d.overlapTable[hi];
        if (idx >= 0) {
            symbol = symbolId(d, idx);
            image = d.imageOfSymbol[idx];
            return true;
        }
        image = imageOf(d);
        int f = d.overlapFallback[hi];
        if (f < 0) {
            symbol = -1;
            return true;
        }
        int k = f >>> 24;
        int i = f & 0xFFFFFF;
        int id = d.fallbackIds[k][i];
        if (id < 0) {
            id = dictionary.addSymbol(d.fallback[k].name(i), image, d.fallback[k].start(i) + linkDelta);
            d.fallbackIds[k][i] = id;
        }
        symbol = id;
        return true;
    }

    /**
     * Looks {@code link} up among the image's labels and PLT stubs; true (and the answer set) when
     * one covers it and starts above the table symbol {@code tableIndex} found for it (if any).
     */
    private boolean fallback(Dso d, long link, int tableIndex) {
        SymbolTable[] fallback = d.fallback;
        for (int k = 0; k < fallback.length; k++) {
            int idx = fallback[k].lookup(link);
            if (idx >= 0 && (tableIndex < 0
                    || Long.compareUnsigned(fallback[k].start(idx), d.table.start(tableIndex)) > 0)) {
                image = imageOf(d);
                int id = d.fallbackIds[k][idx];
                if (id < 0) {
                    id = dictionary.addSymbol(fallback[k].name(idx), image, fallback[k].start(idx) + linkDelta);
                    d.fallbackIds[k][idx] = id;
                }
                symbol = id;
                return true;
            }
        }
        return false;
    }

    /** The table index whose zero-size symbol perf stretches over {@code link}, or -1. */
    private static int extension(Dso d, long link) {
        int i = AddressRanges.holding(d.extensionStart, d.extensionEnd, d.extensionStart.length, link);
        return i >= 0 ? d.extensionIndex[i] : -1;
    }

    private int imageOf(Dso d) {
        int id = d.imageId;
        if (id < 0) {
            id = dictionary.addImage(d.name, d.imageKind, d.domain);
            d.imageId = id;
            named(d, id);
        }
        return id;
    }

    /** The session id of symbol {@code idx} of the image's table, made on first hit. */
    private int symbolId(Dso d, int idx) {
        int id = d.symbolIds[idx];
        if (id >= 0) {
            return id;
        }
        if (d.imageOfSymbol == null) {
            d.imageOfSymbol = new int[d.symbolIds.length];
        }
        String module = d.kind == Dso.Kind.KERNEL ? d.table.module(idx) : null;
        int img = module == null ? imageOf(d) : moduleImage(d, module);
        String name = d.perfNames != null && d.perfNames[idx] != null ? d.perfNames[idx] : d.table.name(idx);
        id = dictionary.addSymbol(name, img, d.table.start(idx) + linkDelta);
        d.symbolIds[idx] = id;
        d.imageOfSymbol[idx] = img;
        return id;
    }

    private final Map<String, Integer> moduleImages = new HashMap<>();

    private int moduleImage(Dso kernel, String module) {
        String key = kernel.domain + "/" + module;
        Integer id = moduleImages.get(key);
        if (id == null) {
            id = dictionary.addImage("[" + module + "]", ImageKind.MODULE, kernel.domain);
            moduleImages.put(key, id);
            Dso placed = kernel.domain == HOST_DOMAIN ? hostModules.get(module) : null;
            if (placed != null) {
                placed.imageId = id;
                named(placed, id);
            }
        }
        return id;
    }
}

package org.hyperprof.source.perf;

/**
 * The numbers of the perf.data format that the reader acts on (peers.md part 2: the layout as
 * checked against a real recording; include/uapi/linux/perf_event.h).
 */
final class PerfFormat {

    private PerfFormat() {
    }

    /** {@code PERFILE2} read as a little-endian u64. */
    static final long MAGIC2 = 0x32454c4946524550L;
    /** {@code PERFFILE}, the old version-1 format. */
    static final long MAGIC1 = 0x454c494646524550L;

    /** The seekable file's header: magic, size, attr_size, three sections, 256 feature bits. */
    static final int FILE_HEADER_SIZE = 104;
    /** The pipe header: magic and size only. */
    static final int PIPE_HEADER_SIZE = 16;
    /** Every record starts with u32 type, u16 misc, u16 size. */
    static final int RECORD_HEADER_SIZE = 8;

    // Record types the reader acts on.
    static final int MMAP = 1;
    static final int LOST = 2;
    static final int COMM = 3;
    static final int EXIT = 4;
    static final int FORK = 7;
    static final int SAMPLE = 9;
    static final int MMAP2 = 10;
    static final int LOST_SAMPLES = 13;
    static final int HEADER_ATTR = 64;
    static final int HEADER_TRACING_DATA = 66;
    static final int HEADER_BUILD_ID = 67;
    static final int FINISHED_ROUND = 68;
    static final int AUXTRACE = 71;
    static final int EVENT_UPDATE = 78;
    static final int HEADER_FEATURE = 80;
    static final int ID_INDEX = 69;
    static final int COMPRESSED = 81;
    static final int COMPRESSED2 = 83;
    /** Types from here on are written by perf itself and carry no sample_id trailer. */
    static final int USER_TYPE_START = 64;
    /** The kernel's record types in Linux 6.1 end before this (PERF_RECORD_MAX: AUX_OUTPUT_HW_ID is 21). */
    static final int KERNEL_TYPE_END = 22;
    /** perf 6.1's own record types end before this (PERF_RECORD_HEADER_MAX: FINISHED_INIT is 82). */
    static final int USER_TYPE_END = 83;

    /**
     * Whether perf 6.1 knows records of this type: it refuses a recording holding any other
     * ({@code failed to process type}), and so the reader notes each one it skips.
     */
    static boolean definedType(int type) {
        return (type > 0 && type < KERNEL_TYPE_END) || (type >= USER_TYPE_START && type < USER_TYPE_END);
    }

    // sample_type bits.
    static final long S_IP = 1L;
    static final long S_TID = 1L << 1;
    static final long S_TIME = 1L << 2;
    static final long S_ADDR = 1L << 3;
    static final long S_READ = 1L << 4;
    static final long S_CALLCHAIN = 1L << 5;
    static final long S_ID = 1L << 6;
    static final long S_CPU = 1L << 7;
    static final long S_PERIOD = 1L << 8;
    static final long S_STREAM_ID = 1L << 9;
    static final long S_IDENTIFIER = 1L << 16;
    // The fields after the callchain, in the order a SAMPLE holds them (IDENTIFIER, bit 16, sits first).
    static final long S_RAW = 1L << 10;
    static final long S_BRANCH_STACK = 1L << 11;
    static final long S_REGS_USER = 1L << 12;
    static final long S_STACK_USER = 1L << 13;
    static final long S_WEIGHT = 1L << 14;
    static final long S_DATA_SRC = 1L << 15;
    static final long S_TRANSACTION = 1L << 17;
    static final long S_REGS_INTR = 1L << 18;
    static final long S_PHYS_ADDR = 1L << 19;
    static final long S_AUX = 1L << 20;
    static final long S_CGROUP = 1L << 21;
    static final long S_DATA_PAGE_SIZE = 1L << 22;
    static final long S_CODE_PAGE_SIZE = 1L << 23;
    static final long S_WEIGHT_STRUCT = 1L << 24;
    /** Every bit whose field follows the callchain: RAW .. WEIGHT_STRUCT without IDENTIFIER. */
    static final long S_AFTER_CALLCHAIN = ((1L << 25) - 1) & ~((1L << 10) - 1) & ~S_IDENTIFIER;
    /** Bits 0..24 (IP .. WEIGHT_STRUCT): every sample_type bit the format defines as of Linux 6.1. */
    static final long S_KNOWN = (1L << 25) - 1;

    /** branch_sample_type's HW_INDEX: a BRANCH_STACK carries a u64 hw_idx before its entries. */
    static final long BRANCH_HW_INDEX = 1L << 17;
    /** A BRANCH_STACK entry: u64 from, u64 to, u64 flags. */
    static final int BRANCH_ENTRY_SIZE = 24;

    // read_format bits.
    static final long R_TOTAL_TIME_ENABLED = 1;
    static final long R_TOTAL_TIME_RUNNING = 2;
    static final long R_ID = 4;
    static final long R_GROUP = 8;
    static final long R_LOST = 16;
    static final long R_KNOWN = 31;

    // perf_event_attr flag bits (the u64 at offset 40).
    static final long A_EXCLUDE_USER = 1L << 4;
    static final long A_EXCLUDE_KERNEL = 1L << 5;
    static final long A_EXCLUDE_HV = 1L << 6;
    static final long A_FREQ = 1L << 10;
    static final long A_SAMPLE_ID_ALL = 1L << 18;
    static final long A_EXCLUDE_HOST = 1L << 19;
    static final long A_EXCLUDE_GUEST = 1L << 20;

    // header.misc.
    static final int CPUMODE_MASK = 7;
    static final int CPUMODE_UNKNOWN = 0;
    static final int CPUMODE_KERNEL = 1;
    static final int CPUMODE_USER = 2;
    static final int CPUMODE_HYPERVISOR = 3;
    static final int CPUMODE_GUEST_KERNEL = 4;
    static final int CPUMODE_GUEST_USER = 5;
    /** MMAP/MMAP2: a data (not executable) mapping; COMM: the comm changed by exec. */
    static final int MISC_MMAP_DATA = 1 << 13;
    static final int MISC_COMM_EXEC = 1 << 13;
    /** FORK: perf record wrote it for a task that ran before it (perf copies no maps then). */
    static final int MISC_FORK_EXEC = 1 << 13;
    /** mmap's PROT_EXEC and MAP_HUGETLB, as MMAP2 records carry them (x86-64 values). */
    static final int PROT_EXEC = 4;
    static final int MAP_HUGETLB = 0x40000;
    /** MMAP2: the record carries a build-id instead of device and inode. */
    static final int MISC_MMAP_BUILD_ID = 1 << 14;
    /** HEADER_BUILD_ID: byte 20 of the id area holds the id's length. */
    static final int MISC_BUILD_ID_SIZE = 1 << 15;

    // Callchain context markers (u64 values at or above CONTEXT_MAX).
    static final long CONTEXT_HV = -32L;
    static final long CONTEXT_KERNEL = -128L;
    static final long CONTEXT_USER = -512L;
    static final long CONTEXT_GUEST = -2048L;
    static final long CONTEXT_GUEST_KERNEL = -2176L;
    static final long CONTEXT_GUEST_USER = -2560L;
    static final long CONTEXT_MAX = -4095L;

    // Feature bits.
    static final int F_BUILD_ID = 2;
    static final int F_HOSTNAME = 3;
    static final int F_OSRELEASE = 4;
    static final int F_VERSION = 5;
    static final int F_ARCH = 6;
    static final int F_NRCPUS = 7;
    static final int F_CPUDESC = 8;
    static final int F_CPUID = 9;
    static final int F_TOTAL_MEM = 10;
    static final int F_CMDLINE = 11;
    static final int F_EVENT_DESC = 12;
    static final int F_SAMPLE_TIME = 21;
    static final int F_COMPRESSED = 27;
    /** The feature bitmap has 256 bits. */
    static final int FEATURE_BITS = 256;

    /** EVENT_UPDATE's payload type that carries the event's name. */
    static final long EVENT_UPDATE_NAME = 2;

    /** Whether a callchain entry is a context marker rather than an address. */
    static boolean isMarker(long entry) {
        return Long.compareUnsigned(entry, CONTEXT_MAX) >= 0;
    }
}

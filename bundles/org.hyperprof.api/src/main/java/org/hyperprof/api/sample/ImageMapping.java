package org.hyperprof.api.sample;

/**
 * Where an image lay in the address space of a process (or of a domain's kernel) while a session
 * ran: the addresses {@code start} (inclusive) to {@code limit} (exclusive) held the image's bytes
 * from file offset {@code fileOffset} on. A sample's {@link SampleBatch#pc} of that process in that
 * range is at file offset {@code pc - start + fileOffset} of the image: what pprof's mappings and
 * an annotation by objdump need. Perf's MMAP and MMAP2 records give them.
 *
 * @param domain the domain whose address space it is
 * @param pid the process, or {@link SampleBatch#UNKNOWN} for a mapping every process of the domain
 *     shares (the kernel and its modules)
 * @param image the image's id in the session's dictionary
 * @param start the first address mapped
 * @param limit the address just past the mapping
 * @param fileOffset the file offset mapped at {@code start}
 * @since 2.2
 */
public record ImageMapping(int domain, int pid, int image, long start, long limit, long fileOffset) {
    public ImageMapping {
        if (Long.compareUnsigned(limit, start) < 0) {
            throw new IllegalArgumentException("a mapping of image " + image + " ends (0x" + Long.toHexString(limit)
                    + ") before it starts (0x" + Long.toHexString(start) + ")");
        }
    }

    /** Whether {@code pc} lies in the mapping. */
    public boolean covers(long pc) {
        return Long.compareUnsigned(pc, start) >= 0 && Long.compareUnsigned(pc, limit) < 0;
    }

    /** The image's file offset of {@code pc}, an address the mapping covers. */
    public long fileOffsetOf(long pc) {
        return pc - start + fileOffset;
    }
}

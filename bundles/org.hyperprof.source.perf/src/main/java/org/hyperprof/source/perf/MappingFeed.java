package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.pipeline.Dictionary;

/**
 * Tells the session's dictionary the mappings of the images samples name, keeping the dictionary's
 * rule that a later mapping of the same addresses of a process replaces an earlier one, though an
 * image's mappings wait until a sample names it. When they are told late, the mappings of that
 * process told since their records came and lying over them (or over those, in turn) are told
 * again after them, in record order: the process's list then ends as its records left it.
 */
final class MappingFeed {

    private final Dictionary dictionary;
    private long records;
    /** Per (domain, pid): every mapping told so far, once, in record order. */
    private final Map<Long, PendingMappings> told = new HashMap<>();

    MappingFeed(Dictionary dictionary) {
        this.dictionary = dictionary;
    }

    /** The order number of a map record just met. */
    long record() {
        return records++;
    }

    /** Tells a mapping of a named image now, its record being the latest. */
    void tell(int domain, int pid, int image, long start, long limit, long fileOffset, long seq) {
        dictionary.addMapping(domain, pid, image, start, limit, fileOffset);
        told.computeIfAbsent(key(domain, pid), k -> new PendingMappings()).add(seq, pid, image, start, limit,
                fileOffset);
    }

    /** Tells the mappings kept for image {@code image} of {@code domain} before it was named. */
    void tellLate(PendingMappings late, int domain, int image) {
        Map<Long, PendingMappings> byProcess = new HashMap<>();
        for (int i = 0; i < late.size(); i++) {
            byProcess.computeIfAbsent(key(domain, late.pid(i)), k -> new PendingMappings()).add(late.seq(i),
                    late.pid(i), image, late.start(i), late.limit(i), late.fileOffset(i));
        }
        byProcess.forEach((key, mine) -> tellLate(key, mine, domain));
    }

    private void tellLate(long key, PendingMappings mine, int domain) {
        PendingMappings before = told.computeIfAbsent(key, k -> new PendingMappings());
        // Merge the late ones with those told since the first of them, in record order; a told one
        // is told again when it lies over a late one or over one told again before it.
        List<long[]> covered = new ArrayList<>(); // {start, limit} of what is being told anew
        int m = 0;
        int b = 0;
        while (b < before.size() && before.seq(b) < mine.seq(0)) {
            b++;
        }
        List<int[]> order = new ArrayList<>(); // {0, index in mine} or {1, index in before}
        while (m < mine.size() || b < before.size()) {
            boolean takeMine = b >= before.size() || (m < mine.size() && mine.seq(m) < before.seq(b));
            if (takeMine) {
                covered.add(new long[] {mine.start(m), mine.limit(m)});
                order.add(new int[] {0, m++});
                continue;
            }
            for (long[] c : covered) {
                if (before.overlaps(b, c[0], c[1])) {
                    covered.add(new long[] {before.start(b), before.limit(b)});
                    order.add(new int[] {1, b});
                    break;
                }
            }
            b++;
        }
        for (int[] o : order) {
            PendingMappings from = o[0] == 0 ? mine : before;
            int i = o[1];
            dictionary.addMapping(domain, from.pid(i), from.image(i), from.start(i), from.limit(i),
                    from.fileOffset(i));
        }
        for (int i = 0; i < mine.size(); i++) {
            before.add(mine.seq(i), mine.pid(i), mine.image(i), mine.start(i), mine.limit(i), mine.fileOffset(i));
        }
    }

    private static long key(int domain, int pid) {
        return (long) domain << 32 | (pid & 0xFFFFFFFFL);
    }
}

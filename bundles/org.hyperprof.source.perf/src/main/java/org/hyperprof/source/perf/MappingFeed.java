package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.source.perf.PendingMappings.Mapping;

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
        told.computeIfAbsent(key(domain, pid), k -> new PendingMappings())
                .add(new Mapping(seq, pid, image, start, limit, fileOffset));
    }

    /** Tells the mappings kept for image {@code image} of {@code domain} before it was named. */
    void tellLate(PendingMappings late, int domain, int image) {
        Map<Long, PendingMappings> byProcess = new HashMap<>();
        for (int i = 0; i < late.size(); i++) {
            Mapping m = late.get(i);
            byProcess.computeIfAbsent(key(domain, m.pid()), k -> new PendingMappings()).add(m.of(image));
        }
        byProcess.forEach((key, mine) -> tellLate(key, mine, domain));
    }

    private void tellLate(long key, PendingMappings mine, int domain) {
        PendingMappings before = told.computeIfAbsent(key, k -> new PendingMappings());
        // Merge the late ones with those told since the first of them, in record order; a told one
        // is told again when it lies over a late one or over one told again before it.
        List<Mapping> again = new ArrayList<>(); // what is told anew, in record order
        int m = 0;
        int b = 0;
        while (b < before.size() && before.get(b).seq() < mine.get(0).seq()) {
            b++;
        }
        while (m < mine.size() || b < before.size()) {
            boolean takeMine = b >= before.size() || (m < mine.size() && mine.get(m).seq() < before.get(b).seq());
            if (takeMine) {
                again.add(mine.get(m++));
                continue;
            }
            Mapping earlier = before.get(b++);
            for (Mapping c : again) {
                if (earlier.overlaps(c.start(), c.limit())) {
                    again.add(earlier);
                    break;
                }
            }
        }
        for (Mapping t : again) {
            dictionary.addMapping(domain, t.pid(), t.image(), t.start(), t.limit(), t.fileOffset());
        }
        for (int i = 0; i < mine.size(); i++) {
            before.add(mine.get(i));
        }
    }

    private static long key(int domain, int pid) {
        return (long) domain << 32 | (pid & 0xFFFFFFFFL);
    }
}

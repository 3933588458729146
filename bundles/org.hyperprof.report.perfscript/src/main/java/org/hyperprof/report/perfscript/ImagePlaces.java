package org.hyperprof.report.perfscript;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;

/**
 * Where an address lies inside its image's file, as perf resolves it ({@code map_ip}: the address
 * minus the mapping's start plus its file offset): what perf script prints for a call-chain frame
 * and what a symbol's offset is counted from. Made once per export from the session's mappings.
 *
 * <p>A process's own mapping of the image is preferred (the latest that covers the address: a
 * later mapping of the same addresses replaces an earlier one); then one for every process (the
 * kernel's, pid -1); then any process's mapping of the image that covers it, since the session
 * tells a forked child's mappings under its parent.
 */
final class ImagePlaces {

    private final Map<Integer, List<ImageMapping>> byImage = new HashMap<>();

    ImagePlaces(SessionDictionary dictionary) {
        int n = dictionary.mappingCount();
        for (int i = 0; i < n; i++) {
            ImageMapping m = dictionary.mapping(i);
            byImage.computeIfAbsent(m.image(), k -> new ArrayList<>()).add(m);
        }
    }

    /** The mapping of {@code image} that places {@code pc} for process {@code pid}, or null. */
    ImageMapping placing(int image, int pid, long pc) {
        List<ImageMapping> list = byImage.get(image);
        if (list == null) {
            return null;
        }
        ImageMapping shared = null;
        ImageMapping other = null;
        for (int i = list.size() - 1; i >= 0; i--) {
            ImageMapping m = list.get(i);
            if (!m.covers(pc)) {
                continue;
            }
            if (m.pid() == pid) {
                return m;
            }
            if (m.pid() == -1) {
                shared = shared == null ? m : shared;
            } else if (other == null) {
                other = m;
            }
        }
        return shared != null ? shared : other;
    }

    /** {@code pc} inside its image's file, or {@code pc} itself where no mapping places it. */
    long inFile(int image, int pid, long pc) {
        ImageMapping m = placing(image, pid, pc);
        return m == null ? pc : m.fileOffsetOf(pc);
    }
}

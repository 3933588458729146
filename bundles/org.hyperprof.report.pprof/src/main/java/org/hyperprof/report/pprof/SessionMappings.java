package org.hyperprof.report.pprof;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;

/**
 * The session's image mappings ({@link SessionDictionary#mapping}) as pprof mappings: each distinct
 * (image, start, limit, file offset) once, however many processes mapped it so, and for each
 * image a search by address. A location finds its mapping by its image and PC: the PC is the one
 * the sample's process ran, and an image's mappings in different processes differ in their
 * addresses (or are the same mapping).
 */
final class SessionMappings {

    /** The distinct mappings (domain and pid 0), in the order the session first told them. */
    private final ImageMapping[] mappings;
    /** Per image (by id), its mappings' indexes sorted by start; null for an image with none. */
    private final int[][] byImage;

    SessionMappings(SessionDictionary dictionary) {
        int n = dictionary.mappingCount();
        Map<ImageMapping, Integer> distinct = new HashMap<>();
        List<ImageMapping> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ImageMapping m = dictionary.mapping(i);
            // the same placement in several processes (forks, the kernel's) is one pprof mapping
            ImageMapping key = new ImageMapping(0, 0, m.image(), m.start(), m.limit(), m.fileOffset());
            if (distinct.putIfAbsent(key, list.size()) == null) {
                list.add(key);
            }
        }
        mappings = list.toArray(ImageMapping[]::new);
        int[] perImage = new int[dictionary.imageCount()];
        for (ImageMapping m : mappings) {
            if (m.image() < perImage.length) {
                perImage[m.image()]++;
            }
        }
        byImage = new int[perImage.length][];
        for (int img = 0; img < perImage.length; img++) {
            if (perImage[img] > 0) {
                byImage[img] = new int[perImage[img]];
                perImage[img] = 0;
            }
        }
        for (int i = 0; i < mappings.length; i++) {
            int img = mappings[i].image();
            if (img < byImage.length) {
                byImage[img][perImage[img]++] = i;
            }
        }
        for (int[] indexes : byImage) {
            if (indexes != null) {
                sortByStart(indexes);
            }
        }
    }

    private void sortByStart(int[] indexes) {
        Integer[] boxed = Arrays.stream(indexes).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, (a, b) -> Long.compareUnsigned(mappings[a].start(), mappings[b].start()));
        for (int i = 0; i < boxed.length; i++) {
            indexes[i] = boxed[i];
        }
    }

    int size() {
        return mappings.length;
    }

    /** Whether the source placed image {@code img} anywhere (a perf import's files, kernel, modules). */
    boolean placed(int img) {
        return img >= 0 && img < byImage.length && byImage[img] != null;
    }

    /** The mapping of image {@code img} that covers {@code pc}, or -1. */
    int find(int img, long pc) {
        if (!placed(img)) {
            return -1;
        }
        int[] indexes = byImage[img];
        // the last mapping starting at or below pc, then those before it (an image's mappings rarely overlap)
        int lo = 0;
        int hi = indexes.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(mappings[indexes[mid]].start(), pc) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int k = found; k >= 0; k--) {
            int i = indexes[k];
            if (Long.compareUnsigned(pc, mappings[i].limit()) < 0) {
                return i;
            }
        }
        return -1;
    }

    /** Mapping {@code i}; its domain and pid are 0, one mapping for every process that had it. */
    ImageMapping mapping(int i) {
        return mappings[i];
    }
}

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

    private final int[] image;
    private final long[] start;
    private final long[] limit;
    private final long[] fileOffset;
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
        int size = list.size();
        image = new int[size];
        start = new long[size];
        limit = new long[size];
        fileOffset = new long[size];
        int[] perImage = new int[dictionary.imageCount()];
        for (int i = 0; i < size; i++) {
            ImageMapping m = list.get(i);
            image[i] = m.image();
            start[i] = m.start();
            limit[i] = m.limit();
            fileOffset[i] = m.fileOffset();
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
        for (int i = 0; i < size; i++) {
            if (image[i] < byImage.length) {
                byImage[image[i]][perImage[image[i]]++] = i;
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
        Arrays.sort(boxed, (a, b) -> Long.compareUnsigned(start[a], start[b]));
        for (int i = 0; i < boxed.length; i++) {
            indexes[i] = boxed[i];
        }
    }

    int size() {
        return image.length;
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
            if (Long.compareUnsigned(start[indexes[mid]], pc) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        for (int k = found; k >= 0; k--) {
            int i = indexes[k];
            if (Long.compareUnsigned(pc, limit[i]) < 0) {
                return i;
            }
        }
        return -1;
    }

    int image(int i) {
        return image[i];
    }

    long start(int i) {
        return start[i];
    }

    long limit(int i) {
        return limit[i];
    }

    long fileOffset(int i) {
        return fileOffset[i];
    }
}

package org.hyperprof.report.pprof;

import org.hyperprof.testing.sample.TestDictionary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.pprof.ChainBatches.Frame;

/**
 * A seeded, many-sample workload with call chains: three domains, two vCPUs each, a hypervisor, a
 * kernel and a user image per domain, a pool of symbols per image, PCs spread over each symbol, and
 * chains one to six callers deep. It keeps its own expected totals, computed from the samples it
 * generated and nothing else, to check what readers of the written profile see.
 */
final class RandomWorkload {
    static final int[] DOMAINS = {0, 1, 5};

    final TestDictionary dictionary = new TestDictionary();
    final SessionInfo info;
    final List<SampleBatch> batches = new ArrayList<>();

    /** Flat samples per function name (the leaf), per counter. */
    final List<Map<String, Long>> flat = new ArrayList<>();
    /** Cumulative samples per function name: each sample counts once for every function on its stack. */
    final List<Map<String, Long>> cum = new ArrayList<>();
    /** Samples per domain name. */
    final Map<String, Long> perDomain = new TreeMap<>();
    final long[] totals;

    private final List<int[]> symbolsOfImage = new ArrayList<>();
    private final List<Long> baseOfImage = new ArrayList<>();

    RandomWorkload(long sessionId, long seed, int batchCount, int batchSize, CounterConfig... counters) {
        Map<Integer, String> names = new TreeMap<>();
        int[][] images = new int[DOMAINS.length][];
        for (int d = 0; d < DOMAINS.length; d++) {
            int domid = DOMAINS[d];
            names.put(domid, domid == 0 ? "Domain-0" : "guest" + domid);
            images[d] = new int[] {image(domid, "xen-syms", ImageKind.HYPERVISOR, 0xFF000000L, 12),
                    image(domid, domid == 0 ? "vmlinux-xen0" : "vmlinux-xenU", ImageKind.KERNEL, 0xC0000000L, 20),
                    image(domid, "app" + domid, ImageKind.USER, 0x08048000L, 8)};
        }
        info = new SessionInfo(sessionId, "simulator", "random-host", "i386/p6", "PIII", 2000, List.of(counters), names,
                false, dictionary);
        totals = new long[counters.length];
        for (int c = 0; c < counters.length; c++) {
            flat.add(new TreeMap<>());
            cum.add(new TreeMap<>());
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int b = 0; b < batchCount; b++) {
            ChainBatches batch = new ChainBatches(info);
            for (int i = 0; i < batchSize; i++) {
                int d = random.nextInt(DOMAINS.length);
                CpuMode mode = CpuMode.values()[random.nextInt(3)];
                int leafImage = images[d][mode == CpuMode.HYPERVISOR ? 0 : mode == CpuMode.KERNEL ? 1 : 2];
                Frame leaf = frame(random, leafImage, random.nextInt(10) == 0);
                Frame[] callers = new Frame[random.nextInt(7)];
                for (int k = 0; k < callers.length; k++) {
                    callers[k] = frame(random, leafImage, false);
                }
                int counter = random.nextInt(counters.length);
                batch.add(1, DOMAINS[d], random.nextInt(2), mode, counter, leaf, callers);
                String leafName = name(leaf);
                flat.get(counter).merge(leafName, 1L, Long::sum);
                java.util.Set<String> onStack = new java.util.HashSet<>();
                onStack.add(leafName);
                for (Frame f : callers) {
                    onStack.add(name(f));
                }
                for (String fn : onStack) {
                    cum.get(counter).merge(fn, 1L, Long::sum);
                }
                perDomain.merge(names.get(DOMAINS[d]), 1L, Long::sum);
                totals[counter]++;
            }
            batches.add(batch.build());
        }
    }

    private int image(int domid, String name, ImageKind kind, long base, int symbols) {
        int image = dictionary.image(domid, name, kind);
        int[] ids = new int[symbols];
        for (int s = 0; s < symbols; s++) {
            ids[s] = dictionary.symbol(image, name.startsWith("app") ? "app_fn" + s : kind.split() + "_fn" + s);
        }
        symbolsOfImage.add(ids);
        baseOfImage.add(base);
        return image;
    }

    /** A PC somewhere in one of the image's symbols (each symbol spans 0x100 bytes), or unsymbolized. */
    private Frame frame(SplittableRandom random, int image, boolean unsymbolized) {
        int[] symbols = symbolsOfImage.get(image);
        int s = random.nextInt(symbols.length);
        long pc = baseOfImage.get(image) + s * 0x100L + random.nextInt(0x40) * 4L;
        return unsymbolized ? new Frame(baseOfImage.get(image) + 0x100000L + random.nextInt(16), image, -1)
                : new Frame(pc, image, symbols[s]);
    }

    String name(Frame f) {
        return f.symbol() < 0 ? dictionary.imageName(f.image()) + ProfileBuilder.NO_SYMBOLS
                : dictionary.symbolName(f.symbol());
    }
}

package org.hyperprof.profiler;

import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.SymbolTables;

/**
 * The primary's view of a passive domain, as OProfile's Xen patch attributed passive samples: the
 * primary knows nothing of a passive guest's processes or modules, so
 * <ul>
 * <li>Xen-mode samples go to the pseudo-image {@code domain<N>-xen};</li>
 * <li>kernel-mode samples inside the guest's kernel are resolved with the kernel image given for it
 * ({@code --passive-images}), or go to {@code domain<N>-kernel} when none was given;</li>
 * <li>other kernel-mode samples (module code) go to {@code domain<N>-modules};</li>
 * <li>user-mode samples go to {@code domain<N>-apps}: passive userland is never symbolised.</li>
 * </ul>
 * The kernel's address range is the one the host's memory map gives for the domain's kernel. Every
 * image is entered in the dictionary as an image of domain N, and every sample is tagged N.
 *
 * <p>Not thread-safe: used under the session's collector lock; the per-PC path allocates nothing.
 */
final class PassiveView implements SampleView {

    private static final int XEN = 0;
    private static final int KERNEL = 1;
    private static final int MODULES = 2;
    private static final int APPS = 3;
    private static final String[] SUFFIX = {"-xen", "-kernel", "-modules", "-apps"};
    private static final ImageKind[] KIND = {ImageKind.HYPERVISOR, ImageKind.KERNEL, ImageKind.MODULE, ImageKind.USER};

    /** The kernel image the primary resolves a passive domain's kernel with. */
    record KernelImage(String name, org.hyperprof.api.symbols.ImageSource symbols, long loadBias) {
    }

    private final int domid;
    private final Dictionary dictionary;
    /** The passive kernel resolved with its image, or null when none was given. */
    private final DomainView kernel;
    private final long kernelStart;
    private final long kernelEnd;
    private final boolean kernelKnown;
    private final String kernelName;
    private final int[] pseudoIds = {-1, -1, -1, -1};
    private final long[] samplesByCategory = new long[4];
    private long samples;

    /**
     * @param domain the passive domain as the host describes it (its kernel's range)
     * @param image  the kernel image given with {@code --passive-images}, or null
     */
    PassiveView(DomainInfo domain, KernelImage image, Dictionary dictionary, SymbolTables symbolTables,
            DomainView.ProblemLog problems) {
        this.domid = domain.domid();
        this.dictionary = dictionary;
        Mapping k = kernelMapping(domain);
        kernelKnown = k != null;
        kernelStart = k == null ? 0 : k.start();
        kernelEnd = k == null ? 0 : k.end();
        if (k != null && image != null) {
            Mapping resolved = new Mapping(k.start(), k.end(), image.name(), ImageKind.KERNEL, image.symbols(),
                    image.loadBias());
            kernel = new DomainView(domid, List.of(resolved), dictionary, symbolTables, problems);
            kernelName = image.name();
        } else {
            kernel = null;
            kernelName = pseudoName(domid, KERNEL);
        }
    }

    /** The domain's kernel in the host's memory map, or null when it lists none. */
    static Mapping kernelMapping(DomainInfo domain) {
        for (Mapping m : domain.memoryMap()) {
            if (m.kind() == ImageKind.KERNEL) {
                return m;
            }
        }
        return null;
    }

    static String pseudoName(int domid, int category) {
        return "domain" + domid + SUFFIX[category];
    }

    /** {@code domain<N>-kernel}. */
    static String kernelImageName(int domid) {
        return pseudoName(domid, KERNEL);
    }

    @Override
    public int domid() {
        return domid;
    }

    @Override
    public long resolveSample(long pc, int mode) {
        int category = category(pc, mode);
        samplesByCategory[category]++;
        samples++;
        if (category == KERNEL && kernel != null) {
            return kernel.resolveSample(pc, 1); // counted there too: samples outside the given kernel's symbols
        }
        return resolveIn(category, pc);
    }

    @Override
    public long resolveCaller(long pc, int mode) {
        return resolveIn(category(pc, mode), pc);
    }

    private int category(long pc, int mode) {
        if (mode == 0) {
            return APPS;
        }
        if (mode == 1) {
            if (!kernelKnown) {
                return KERNEL;
            }
            boolean inKernel = Long.compareUnsigned(pc, kernelStart) >= 0 && Long.compareUnsigned(pc, kernelEnd) < 0;
            return inKernel ? KERNEL : MODULES;
        }
        return XEN;
    }

    private long resolveIn(int category, long pc) {
        if (category == KERNEL && kernel != null) {
            return kernel.resolve(pc, 1);
        }
        int id = pseudoIds[category];
        if (id < 0) {
            id = dictionary.addImage(pseudoName(domid, category), KIND[category], domid);
            pseudoIds[category] = id;
        }
        return DomainView.pack(id, SessionDictionary.NO_SYMBOL);
    }

    long samples() {
        return samples;
    }

    /** The notes of the kernel image given for this passive domain: its samples outside every symbol. */
    List<String> outsideSymbolNotes() {
        return kernel == null ? List.of() : kernel.outsideSymbolNotes("passive domain " + domid);
    }

    /** The passive domain's samples by pseudo-image, for --status of the primary. */
    List<String> tallies() {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            if (samplesByCategory[c] > 0) {
                String name = c == KERNEL ? kernelName : pseudoName(domid, c);
                out.add(String.format("%8d  %5.1f%%  %s", samplesByCategory[c],
                        100.0 * samplesByCategory[c] / Math.max(1, samples), name));
            }
        }
        return out;
    }

    void resetTallies() {
        java.util.Arrays.fill(samplesByCategory, 0);
        samples = 0;
    }
}

package org.hyperprof.profiler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntFunction;

import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.Mapping;
import org.hyperprof.api.symbols.ImageSource;

/**
 * {@code --passive-images}: the kernel image of each passive domain, checked before the primary's
 * driver makes any hypercall, as opcontrol checked its image files. An entry names an image of the
 * domain's memory map (its kernel) or a symbol file on this machine (System.map / nm text, or ELF).
 */
final class PassiveImages {

    private PassiveImages() {
    }

    /**
     * The kernel image of each passive domain, checked before any hypercall as opcontrol checked
     * its image files: an image of that domain's memory map (it must be its kernel), or a readable
     * symbol file (System.map / nm text, or ELF).
     *
     * @param domains the host's domains by id (null for an id that names none)
     * @return per passive domain, its kernel image, or null where none was given (or none is used)
     */
    static PassiveView.KernelImage[] check(StepLog log, IntFunction<DomainInfo> domains, int[] ids,
            List<String> entries) throws StepLog.StepFailed {
        if (entries.size() > ids.length) {
            throw log.fail(DaemonGuide.tooManyPassiveImages(entries.size(), ids));
        }
        PassiveView.KernelImage[] out = new PassiveView.KernelImage[ids.length];
        for (int k = 0; k < entries.size(); k++) {
            String e = entries.get(k);
            if (e.isEmpty()) {
                continue;
            }
            DomainInfo d = domains.apply(ids[k]);
            if (d == null) {
                // set_passive will refuse the domain with -EINVAL and explain it.
                continue;
            }
            out[k] = kernelImage(log, d, e);
        }
        return out;
    }

    private static PassiveView.KernelImage kernelImage(StepLog log, DomainInfo d, String entry)
            throws StepLog.StepFailed {
        Mapping kernel = PassiveView.kernelMapping(d);
        String kernelName = kernel == null ? "none" : kernel.image();
        for (Mapping m : d.memoryMap()) {
            if (m.image().equals(entry)) {
                if (m != kernel) {
                    throw log.fail(DaemonGuide.notItsKernel(entry, m, d, kernelName));
                }
                if (m.symbols() == null) {
                    log.note(DaemonGuide.kernelWithoutSymbols(entry, d));
                }
                return new PassiveView.KernelImage(entry, m.symbols(), m.loadBias());
            }
        }
        Path path;
        try {
            path = Path.of(entry);
        } catch (InvalidPathException ex) {
            path = null;
        }
        if (path == null || !Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw log.fail(DaemonGuide.neitherImageNorFile(entry, d, kernelName));
        }
        if (kernel == null) {
            log.note(DaemonGuide.noKernelInMap(entry, d));
            return null;
        }
        Path file = path;
        ImageSource source = new ImageSource(entry, formatOf(file), file.toString(), () -> Files.newInputStream(file));
        return new PassiveView.KernelImage(entry, source, 0);
    }

    /** ELF files by their magic number, everything else as System.map / nm text. */
    private static String formatOf(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            if (magic.length == 4 && magic[0] == 0x7F && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') {
                return "elf";
            }
        } catch (IOException e) {
            // Unreadable now: the resolver reports it when it loads the file.
        }
        return "kallsyms";
    }
}

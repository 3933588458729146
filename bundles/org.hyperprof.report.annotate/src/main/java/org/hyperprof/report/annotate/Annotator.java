package org.hyperprof.report.annotate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SessionDictionary;

/**
 * Annotates one function of a session: finds the symbol by its name, places each of its sampled
 * pcs in the image's file (the session's mapping of that process: file offset = pc - start +
 * file offset; then the file's loadable segments give the address objdump prints), and puts the
 * counts on the instructions objdump disassembles between the function's bounds.
 */
final class Annotator {

    private final Binutils binutils;

    Annotator(Binutils binutils) {
        this.binutils = binutils;
    }

    /**
     * @param imagePattern a regular expression the image's name must contain, or null
     * @param domain       the domain whose samples count, or negative for all
     */
    Annotation annotate(AddressCounts counts, String name, Pattern imagePattern, int domain, boolean source)
            throws ReportException {
        SessionDictionary dictionary = counts.info().dictionary();
        long session = counts.info().sessionId();
        int image = imageOf(dictionary, session, name, imagePattern);
        List<Integer> symbols = symbolsOf(dictionary, name, image);
        Path file = fileOf(dictionary, image, name);
        ElfSegments segments = ElfSegments.read(file);
        List<ImageMapping> mappings = new ArrayList<>();
        for (int i = 0; i < dictionary.mappingCount(); i++) {
            ImageMapping m = dictionary.mapping(i);
            if (m.image() == image) {
                mappings.add(m);
            }
        }
        if (mappings.isEmpty()) {
            throw new ReportException("session " + session + " does not say where " + dictionary.imageName(image)
                    + " lay in memory (its source gave no mappings, or a store that keeps none replayed it), so its"
                    + " samples cannot be placed on the file's instructions; a perf.data import (hp:import) gives"
                    + " them");
        }
        String symbolName = dictionary.symbolName(symbols.get(0));
        Binutils.Function function = binutils.function(file, symbolName);
        Map<Long, Long> byAddress = new HashMap<>();
        long unplaced = 0;
        for (AddressCounts.Hit hit : counts.hits(symbols, domain)) {
            long address = addressOf(hit, mappings, segments);
            if (address < 0) {
                unplaced += hit.samples();
            } else {
                byAddress.merge(address, (long) hit.samples(), Long::sum);
            }
        }
        List<Binutils.Line> lines = binutils.disassemble(file, function.start(), function.end(), source);
        // A pc inside an instruction (a simulated host's pcs fall anywhere in a function) counts on it.
        TreeMap<Long, Long> onInstruction = new TreeMap<>();
        for (Binutils.Line line : lines) {
            if (line.isInstruction()) {
                onInstruction.put(line.address(), 0L);
            }
        }
        long outsideFunction = 0;
        long inside = 0;
        for (Map.Entry<Long, Long> e : byAddress.entrySet()) {
            Long at = onInstruction.floorKey(e.getKey());
            if (at == null || e.getKey() >= function.end()) {
                outsideFunction += e.getValue();
                continue;
            }
            onInstruction.merge(at, e.getValue(), Long::sum);
            if (at.longValue() != e.getKey().longValue()) {
                inside += e.getValue();
            }
        }
        List<Annotation.Row> rows = new ArrayList<>();
        for (Binutils.Line line : lines) {
            rows.add(new Annotation.Row(line.address(), line.text(),
                    line.isInstruction() ? onInstruction.get(line.address()) : -1));
        }
        List<String> notes = new ArrayList<>();
        if (unplaced > 0) {
            notes.add(unplaced + " samples of " + name + " lay in no mapping of " + dictionary.imageName(image)
                    + " or outside its loadable segments");
        }
        if (outsideFunction > 0) {
            notes.add(outsideFunction + " samples of " + name + " lay outside its bounds in " + file
                    + " (0x" + Long.toHexString(function.start()) + "-0x" + Long.toHexString(function.end())
                    + "); is it the file that was recorded?");
        }
        if (inside > 0) {
            notes.add(inside + " samples of " + name + " fell inside an instruction, not at its start, and count on"
                    + " it (a simulated host samples anywhere in a function; a real recording never does)");
        }
        String event = counts.info().counters().isEmpty() ? "samples" : counts.info().counters().get(0).event().name();
        return new Annotation(session, event, name, file.toString(), function, counts.counted(), rows,
                unplaced + outsideFunction, notes);
    }

    /** The address objdump prints for a hit, or -1 when no mapping or segment places it. */
    static long addressOf(AddressCounts.Hit hit, List<ImageMapping> mappings, ElfSegments segments) {
        // A later mapping of the same addresses replaces an earlier one: search from the last.
        for (int i = mappings.size() - 1; i >= 0; i--) {
            ImageMapping m = mappings.get(i);
            if (m.domain() == hit.domain() && (m.pid() == hit.pid() || m.pid() == -1) && m.covers(hit.pc())) {
                return segments.vaddrOf(m.fileOffsetOf(hit.pc()));
            }
        }
        return -1;
    }

    /** Whether the dictionary's symbol is the one asked for: by its name as recorded, demangled or short. */
    private static boolean named(SessionDictionary d, int s, String name) {
        return name.equals(d.symbolName(s)) || name.equals(d.shownName(s)) || name.equals(d.briefName(s));
    }

    /** The one image that has a symbol named {@code name} (and whose name fits the pattern). */
    private static int imageOf(SessionDictionary d, long session, String name, Pattern imagePattern)
            throws ReportException {
        Set<Integer> images = new LinkedHashSet<>();
        for (int s = 0; s < d.symbolCount(); s++) {
            int image = d.symbolImage(s);
            if (named(d, s, name) && (imagePattern == null || imagePattern.matcher(d.imageName(image)).find())) {
                images.add(image);
            }
        }
        if (images.isEmpty()) {
            throw new ReportException("session " + session + " has no symbol named '" + name + "'"
                    + (imagePattern == null ? "" : " in an image matching '" + imagePattern + "'")
                    + "; hp:report symbols lists the sampled ones (give the name as it prints it)");
        }
        if (images.size() > 1) {
            List<String> names = images.stream().map(d::imageName).toList();
            throw new ReportException("'" + name + "' is a symbol of " + images.size() + " images of session "
                    + session + ": " + String.join(", ", names) + "; choose one with --image REGEX");
        }
        return images.iterator().next();
    }

    private static List<Integer> symbolsOf(SessionDictionary d, String name, int image) {
        List<Integer> symbols = new ArrayList<>();
        for (int s = 0; s < d.symbolCount(); s++) {
            if (d.symbolImage(s) == image && named(d, s, name)) {
                symbols.add(s);
            }
        }
        return symbols;
    }

    /** The image's file, when it is one with code to disassemble; else a typed error saying why not. */
    private static Path fileOf(SessionDictionary d, int image, String symbol) throws ReportException {
        String file = d.imageFile(image);
        String name = file != null ? file : d.imageName(image);
        ImageKind kind = d.imageKind(image);
        String why = null;
        if (name.startsWith("[") || !name.startsWith("/")) {
            why = "it names no file (" + (kind == ImageKind.KERNEL || kind == ImageKind.HYPERVISOR
                    ? "a kernel known by its symbol list only; annotation needs its ELF image, such as vmlinux"
                    : "no file path: a simulated image, anonymous memory or JIT code") + ")";
        } else if (!Files.isRegularFile(Path.of(name))) {
            why = "the file is not on this machine (" + name + ")";
        }
        if (why != null) {
            throw new ReportException("cannot annotate " + symbol + ": its image " + name + " has no code to"
                    + " disassemble: " + why);
        }
        return Path.of(name);
    }
}

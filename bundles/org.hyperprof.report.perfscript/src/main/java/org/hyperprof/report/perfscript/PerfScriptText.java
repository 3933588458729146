package org.hyperprof.report.perfscript;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;

/**
 * Kept samples as {@code perf script} prints them with its default fields (perf 6's
 * {@code builtin-script.c}), which Firefox Profiler, hotspot, speedscope and Perfetto read:
 *
 * <pre>
 *             busy  8959 11969.377285:     100000 cpu-clock:      7f9ed4089ab0 main+0x1a (/tmp/busy)
 * </pre>
 *
 * comm ({@code %16s}), tid ({@code %5d}), the CPU ({@code [%03d]}) when the recording has it, the
 * time in seconds with microseconds ({@code %5d.%06d:}, cut, not rounded), the period ({@code %10d}),
 * the event name (right-aligned to the longest of the session's), then the sampled address
 * ({@code %16x}), its symbol with its offset as {@code sym+0x1a} ({@code [unknown]} without one) and
 * its image in brackets ({@code [unknown]} without one). A session with call chains prints as perf
 * does with {@code -g}: the comm unpadded, the header line ending after the event, one line per
 * frame ({@code \t%16x sym+0x1a (dso)}, the address inside its image's file as perf's {@code map_ip}
 * makes it) and a blank line after each sample.
 *
 * <p>Names are perf's: a symbol's short demangled form ({@link SessionDictionary#briefName}), an
 * image's name as the session gives it, a thread's comm at the sample's time.
 */
final class PerfScriptText {

    private final KeptSamples.Snapshot samples;
    private final SessionDictionary dictionary;
    private final ImagePlaces places;
    private final String[] eventNames;
    private final int domain;
    private final boolean chains;
    private final StringBuilder line = new StringBuilder(256);

    PerfScriptText(KeptSamples.Snapshot samples, int domain) {
        this.samples = samples;
        SessionInfo info = samples.info();
        this.dictionary = info.dictionary();
        this.places = new ImagePlaces(dictionary);
        this.domain = domain;
        this.eventNames = eventNames(info);
        this.chains = anyChain(samples);
    }

    /** The events' names, right-aligned to the longest, as perf pads them ({@code %*s}). */
    private static String[] eventNames(SessionInfo info) {
        int n = info.counters().size();
        String[] names = new String[n];
        int width = 0;
        for (int i = 0; i < n; i++) {
            names[i] = info.counters().get(i).event().name();
            width = Math.max(width, names[i].length());
        }
        for (int i = 0; i < n; i++) {
            names[i] = " ".repeat(width - names[i].length()) + names[i];
        }
        return names;
    }

    /** Whether perf would print call chains: the recording had them (any sample carries one). */
    private static boolean anyChain(KeptSamples.Snapshot s) {
        for (long i = 0; i < s.samples(); i++) {
            if (s.chainLength(i) > 0 || s.has(i, SampleBatch.CHAIN_FROM_PC)) {
                return true;
            }
        }
        return false;
    }

    /** Writes every kept sample of the asked domain(s), in the order they came. */
    void writeTo(OutputStream out) throws IOException {
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        long frame = 0;
        for (long s = 0; s < samples.samples(); s++) {
            int n = samples.chainLength(s);
            if (domain == ReportRequest.ALL_DOMAINS || samples.domain(s) == domain) {
                line.setLength(0);
                sample(s, frame, n);
                w.append(line);
            }
            frame += n;
        }
        w.flush();
    }

    private void sample(long s, long firstFrame, int frames) {
        StringBuilder b = line;
        String comm = comm(s);
        if (chains) {
            b.append(comm);
        } else {
            pad(b, comm, 16);
        }
        b.append(' ');
        pad(b, Integer.toString(samples.tid(s)), 5);
        b.append(' ');
        int cpu = samples.cpu(s);
        if (cpu != SampleBatch.UNKNOWN) {
            b.append('[');
            zeros(b, cpu, 3);
            b.append("] ");
        }
        long time = samples.time(s);
        if (time != SampleBatch.UNKNOWN) {
            pad(b, Long.toString(time / 1_000_000_000L), 5);
            b.append('.');
            zeros(b, time / 1_000L % 1_000_000L, 6);
            b.append(": ");
        }
        pad(b, Long.toUnsignedString(samples.weight(s)), 10);
        b.append(' ');
        int slot = samples.counterSlot(s);
        b.append(slot >= 0 && slot < eventNames.length ? eventNames[slot] : "[unknown]").append(": ");
        int pid = samples.pid(s);
        if (!chains) {
            b.append(' ');
            hex16(b, samples.pc(s));
            frame(b, samples.image(s), samples.symbol(s), pid, samples.pc(s));
            b.append('\n');
            return;
        }
        b.append('\n');
        if (samples.has(s, SampleBatch.CHAIN_FROM_PC)) {
            chainLine(b, samples.image(s), samples.symbol(s), pid, samples.pc(s));
        }
        for (long f = firstFrame, end = firstFrame + frames; f < end; f++) {
            chainLine(b, samples.frameImage(f), samples.frameSymbol(f), pid, samples.framePc(f));
        }
        b.append('\n');
    }

    private void chainLine(StringBuilder b, int image, int symbol, int pid, long pc) {
        b.append('\t');
        hex16(b, known(image) ? places.inFile(image, pid, pc) : pc);
        frame(b, image, symbol, pid, pc);
        b.append('\n');
    }

    /** {@code " sym+0x1a (dso)"}. */
    private void frame(StringBuilder b, int image, int symbol, int pid, long pc) {
        b.append(' ');
        if (symbol >= 0 && symbol < dictionary.symbolCount()) {
            b.append(dictionary.briefName(symbol));
            long start = dictionary.symbolStart(symbol);
            if (start != SampleBatch.UNKNOWN) {
                b.append("+0x").append(Long.toHexString(places.inFile(image, pid, pc) - start));
            }
        } else {
            b.append("[unknown]");
        }
        b.append(" (").append(known(image) ? dictionary.imageName(image) : "[unknown]").append(')');
    }

    private boolean known(int image) {
        return image >= 0 && image < dictionary.imageCount();
    }

    /**
     * The thread's comm at the sample's time, as perf prints it ({@code :<tid>} for a thread never
     * named); for a sample of no known process (the simulator's), its domain's name.
     */
    private String comm(long s) {
        String name = dictionary.commName(samples.comm(s));
        if (name == null) {
            name = dictionary.processName(samples.domain(s), samples.pid(s));
        }
        if (name == null && samples.pid(s) == SampleBatch.UNKNOWN) {
            name = samples.info().domainName(samples.domain(s));
        }
        return name != null ? name : ":" + samples.tid(s);
    }

    private static void pad(StringBuilder b, String s, int width) {
        for (int i = s.length(); i < width; i++) {
            b.append(' ');
        }
        b.append(s);
    }

    private static void zeros(StringBuilder b, long v, int width) {
        String s = Long.toString(v);
        for (int i = s.length(); i < width; i++) {
            b.append('0');
        }
        b.append(s);
    }

    private static void hex16(StringBuilder b, long v) {
        pad(b, Long.toHexString(v), 16);
    }
}

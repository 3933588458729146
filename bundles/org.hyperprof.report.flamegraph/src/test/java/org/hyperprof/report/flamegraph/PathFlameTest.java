package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;
import org.junit.jupiter.api.Test;

/**
 * The flame graph drawn from sorted paths is the one the whole tree draws: the same JSON, byte for
 * byte, for stacks with runs of frames without a symbol, equal symbols from different frame objects,
 * several domains and processes, stacks without samples and frames exactly as wide as the threshold.
 */
class PathFlameTest {
    private static final String[] IMAGES = {"vmlinux", "xen-syms", "libc.so.6", "app", "(unknown)", "[vdso]"};
    private static final ImageKind[] KINDS = {ImageKind.KERNEL, ImageKind.HYPERVISOR, ImageKind.USER,
            ImageKind.USER, ImageKind.UNKNOWN, ImageKind.MODULE};
    /** With 1,000,000 samples in all the threshold is 50: samples of 50 make frames exactly that wide. */
    private static final long[] SAMPLES = {0, 1, 7, 49, 50, 50, 51, 400, 2_000};

    private static StoredSession session() {
        return new StoredSession(9, "host", "perf", null, List.of(), "speed", "x86-64",
                List.of("cycles:0:0"), Instant.EPOCH, Instant.EPOCH, StoredSession.COMPLETED, 1_000_000,
                null, 1_000_000, 0, List.of(), null, false, List.of(), -1);
    }

    /** A new frame object each time, as a store that names symbols of different ids the same would give. */
    private static DiffStack.Frame frame(Random random) {
        int symbol = random.nextInt(40);
        int image = symbol % IMAGES.length;
        boolean unnamed = symbol % 7 == 0;
        return new DiffStack.Frame(IMAGES[image], KINDS[image], unnamed ? null : "f" + symbol + (symbol % 5 == 0 ? ";x" : ""));
    }

    /** Stacks summing to exactly 1,000,000 samples. */
    private static List<StoredStack> stacks(long seed, boolean processes) {
        Random random = new Random(seed);
        List<StoredStack> out = new ArrayList<>();
        long left = 1_000_000;
        while (left > 0) {
            List<DiffStack.Frame> frames = new ArrayList<>();
            int depth = 1 + random.nextInt(6);
            for (int i = 0; i < depth; i++) {
                DiffStack.Frame f = frame(random);
                int repeats = f.symbol() == null ? 1 + random.nextInt(3) : 1;
                for (int r = 0; r < repeats; r++) {
                    frames.add(f);
                }
            }
            long samples = Math.min(left, SAMPLES[random.nextInt(SAMPLES.length)]);
            left -= samples;
            int domain = random.nextInt(3);
            String process = processes ? "app (" + random.nextInt(4) + ")" : null;
            out.add(new StoredStack(domain, "Domain-" + domain, process, frames, samples));
        }
        return out;
    }

    private static String wholeTree(List<StoredStack> stacks, int domain) throws ReportException {
        FlameTree tree = StoredTree.of(stacks, 0, domain);
        StoredLook look = StoredTree.look(tree, session(), stacks);
        return FlameJson.render(tree, look, 9, look.counterName());
    }

    @Test
    void sortedPathsDrawWhatTheWholeTreeDraws() throws Exception {
        for (long seed = 1; seed <= 6; seed++) {
            List<StoredStack> stacks = stacks(seed, seed % 2 == 0);
            String expected = wholeTree(stacks, ReportRequest.ALL_DOMAINS);
            assertEquals(expected, PathFlame.json(stacks, session(), 0, ReportRequest.ALL_DOMAINS), "seed " + seed);
            assertTrue(expected.contains("px left out"), "the threshold leaves frames out: " + expected.substring(0, 400));
        }
    }

    @Test
    void oneDomainIsNamedInTheWordsAsTheWholeTreeNamesIt() throws Exception {
        List<StoredStack> stacks = stacks(7, true).stream().filter(s -> s.domainId() == 1).toList();
        String expected = wholeTree(stacks, 1);
        assertEquals(expected, PathFlame.json(stacks, session(), 0, 1));
        assertTrue(expected.contains("domain 1 (Domain-1)"), expected.substring(0, 400));
    }

    @Test
    void runsOfFramesWithoutASymbolAreFoldedAndCounted() throws Exception {
        DiffStack.Frame unknown = new DiffStack.Frame("(unknown)", ImageKind.UNKNOWN, null);
        DiffStack.Frame main = new DiffStack.Frame("app", ImageKind.USER, "main");
        List<StoredStack> stacks = List.of(new StoredStack(0, "Domain-0", "app (7)",
                List.of(unknown, unknown, unknown, main), 4));
        String json = PathFlame.json(stacks, session(), 0, ReportRequest.ALL_DOMAINS);
        assertEquals(wholeTree(stacks, ReportRequest.ALL_DOMAINS), json);
        assertTrue(json.contains("\"maxDepth\":4,\"leftOut\":0,\"folded\":2"), json);
    }

    @Test
    void stacksWithoutSamplesAreRefusedInWords() {
        List<StoredStack> stacks = List.of(new StoredStack(0, "Domain-0", null,
                List.of(new DiffStack.Frame("app", ImageKind.USER, "main")), 0));
        ReportException e = assertThrows(ReportException.class,
                () -> PathFlame.json(stacks, session(), 0, ReportRequest.ALL_DOMAINS));
        assertTrue(e.getMessage().contains("no samples of counter 0"), e.getMessage());
    }
}

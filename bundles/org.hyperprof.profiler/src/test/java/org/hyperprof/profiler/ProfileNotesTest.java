package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a profile of the simulated host says in its notes, which every report prints: samples that
 * fell outside every symbol of their image's table (a System.map of another kernel resolves
 * nothing), and a run whose values leave no sample to expect.
 */
class ProfileNotesTest {

    private static final String DB_KERNEL = "vmlinux-syms-2.6.18-53.el5xen";

    @TempDir
    Path dir;

    /** An embedded System.map copied to a file, as a user gives one with --passive-images. */
    private Path map(String name) throws Exception {
        Path file = dir.resolve(name + ".map");
        try (InputStream in = HostServiceImpl.class.getClassLoader()
                .getResourceAsStream(HostServiceImpl.SCENARIO_FOLDER + "/symbols/" + name + ".map")) {
            Files.copy(in, file);
        }
        return file;
    }

    @Test
    void aPassiveKernelResolvedWithAnotherKernelsSystemMapSaysHowManySamplesFellOutsideAndWhy() throws Exception {
        Path other = map("vmlinux-2.6.32.59-0.7-xen"); // a 64-bit kernel: none of db-pv's addresses is in it
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 20_000, List.of(), List.of(2),
                    List.of(other.toString()), 0), ProgressListener.NONE);
            List<String> notes = s.notes().stream().filter(n -> n.contains("fell inside a symbol")).toList();
            assertEquals(1, notes.size(), s.notes().toString());
            String note = notes.get(0);
            assertTrue(note.matches("passive domain 2 image " + java.util.regex.Pattern.quote(other.toString())
                    + ": none of its [1-9][0-9]* sample\\(s\\) fell inside a symbol of "
                    + java.util.regex.Pattern.quote(other.toString()) + ", so the report names no function of it: the"
                    + " file is likely not of the .* this domain runs \\(a System.map or kallsyms of another kernel, or"
                    + " another build\\); give the symbol file of the image that runs"), note);
        }
    }

    @Test
    void theRightSystemMapLeavesNoSuchNote() throws Exception {
        Path right = map(DB_KERNEL);
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of(), 20_000, List.of(), List.of(2),
                    List.of(right.toString()), 0), ProgressListener.NONE);
            assertFalse(s.notes().stream().anyMatch(n -> n.contains("symbol of")), s.notes().toString());
        }
    }

    @Test
    void aProfileWhoseCountNoRunCanReachSaysNoSampleCanBeExpected() throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s = h.profiler.profile(new ProfileRequest(List.of("CPU_CLK_UNHALTED:2000000000"), 100,
                    List.of()), ProgressListener.NONE);
            assertTrue(s.notes().stream().anyMatch(n -> n.startsWith("no samples can be expected from this run:"
                    + " counter 0 (CPU_CLK_UNHALTED, count 2000000000): a run of 0.1 ms at 2400 MHz on 4 pCPU(s)"
                    + " counts at most 960000 CYCLES events")), s.notes().toString());
            assertEquals(0, s.accounting().delivered());
        }
    }
}

package org.hyperprof.source.folded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.source.SampleSource;
import org.hyperprof.api.source.SourceFormatException;
import org.hyperprof.pipeline.SourceRunner;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.testing.host.NoHost;
import org.hyperprof.testing.sample.Sessions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Folded stacks read through the real pipeline and profiler into a consumer, as hp:read does. */
class FoldedStacksTest {
    @TempDir
    Path dir;

    private final ProfilerImpl profiler = new ProfilerImpl(new NoHost(), 64, 64, Duration.ofSeconds(5));
    private final SourceRunner runner = new SourceRunner(profiler);
    private final Sessions consumer = new Sessions();

    FoldedStacksTest() {
        runner.addSource(new FoldedStacks(), Map.of(SampleSource.NAME, "folded"));
        profiler.addConsumer("sessions", consumer);
    }

    @AfterEach
    void stop() {
        profiler.removeConsumer("sessions");
    }

    private Path file(String text) throws IOException {
        Path f = dir.resolve("app.folded");
        Files.writeString(f, text);
        return f;
    }

    /** Each sample as "mode image:symbol <- caller image:symbol ...", innermost first. */
    private List<String> stacks(long session) {
        SessionDictionary d = consumer.infos.get(session).dictionary();
        List<String> out = new ArrayList<>();
        for (SampleBatch b : consumer.batches.get(session)) {
            for (int i = 0; i < b.size; i++) {
                StringBuilder s = new StringBuilder(b.mode[i] + " " + d.imageName(b.image[i]) + ":"
                        + d.symbolName(b.symbol[i]));
                for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                    s.append(" <- ").append(d.imageName(b.chainImage[c])).append(':')
                            .append(d.symbolName(b.chainSymbol[c]));
                }
                out.add(s.toString());
            }
        }
        return out;
    }

    @Test
    void eachCountIsThatManySamplesOfTheLeafWithTheOtherFramesAsItsCallersInnermostFirst() throws Exception {
        SessionSummary s = runner.read("folded", file("main;parse;lex 2\nmain;eval 1\n"));
        assertEquals(new Accounting(3, 3, 0, 0, 0), s.accounting());
        assertEquals(List.of("0 app.folded:lex <- app.folded:parse <- app.folded:main",
                "0 app.folded:lex <- app.folded:parse <- app.folded:main",
                "0 app.folded:eval <- app.folded:main"), stacks(s.sessionId()));
        assertEquals("folded", consumer.infos.get(s.sessionId()).source());
        assertEquals("app.folded", consumer.infos.get(s.sessionId()).domainName(0));
        assertTrue(s.consumers().stream().allMatch(c -> c.received() == 3 && c.missed() == 0), s.consumers().toString());
    }

    @Test
    void kernelMarkedFramesAreTheKernelsAndAMarkedLeafIsAKernelModeSample() throws Exception {
        SessionSummary s = runner.read("folded", file("bash;sys_read_[k];vfs_read_[k] 1\nlibc.so`read 1\n"));
        assertEquals(List.of("1 [kernel.kallsyms]:vfs_read <- [kernel.kallsyms]:sys_read <- app.folded:bash",
                "0 libc.so:read"), stacks(s.sessionId()));
        SessionDictionary d = consumer.infos.get(s.sessionId()).dictionary();
        List<ImageKind> kinds = new ArrayList<>();
        for (int i = 0; i < d.imageCount(); i++) {
            kinds.add(d.imageKind(i));
        }
        assertEquals(List.of(ImageKind.USER, ImageKind.KERNEL, ImageKind.USER), kinds);
    }

    @Test
    void linesThatAreNotAStackAndACountAreSkippedAndSaidAsFlamegraphPlSkipsThem() throws Exception {
        SessionSummary s = runner.read("folded", file("# a comment\nmain;work 4\nmain;work four\n\nmain 1\n"));
        assertEquals(5, s.accounting().delivered());
        assertTrue(s.notes().contains("2 lines that are not a stack and a count were skipped, as flamegraph.pl skips"
                + " them (the first: line 1)"), s.notes().toString());
    }

    @Test
    void aFileWithNoStackAtAllIsRefusedNamingTheFileAndTheLine() throws Exception {
        Path f = file("\n{\"traceEvents\": []}\n");
        SourceFormatException e = assertThrows(SourceFormatException.class, () -> runner.read("folded", f));
        assertEquals(f + " line 2: expected folded stacks (\"root;caller;leaf count\" per line) and found no such line"
                + " in 1 lines; is this the output of a stackcollapse script?", e.getMessage());
        SessionSummary ended = consumer.summaries.values().iterator().next();
        assertTrue(ended.endReason().startsWith("failed: "), ended.endReason());
        assertEquals(0, ended.accounting().taken());
    }

    @Test
    void countsBeyondWhatCanBeMadeOneByOneAreRefusedBeforeAnyIsMade() throws Exception {
        Path f = file("main 3\nmain;loop " + FoldedStacks.MAX_SAMPLES + "\n");
        SourceFormatException e = assertThrows(SourceFormatException.class, () -> runner.read("folded", f));
        assertTrue(e.getMessage().startsWith(f + " line 2: the counts add up to more than 1000000000 samples"),
                e.getMessage());
        SessionSummary ended = consumer.summaries.values().iterator().next();
        assertEquals(new Accounting(3, 3, 0, 0, 0), ended.accounting(), "what was read before reached the consumers");
    }

    @Test
    void aSourceNobodyInstalledIsNamedWithThoseThatAre() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> runner.read("collapsed", dir.resolve("x")));
        assertEquals("no sample source 'collapsed' is installed; installed: folded (hp:sources)", e.getMessage());
    }
}

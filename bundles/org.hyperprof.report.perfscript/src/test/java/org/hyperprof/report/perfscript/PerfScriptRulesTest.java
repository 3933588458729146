package org.hyperprof.report.perfscript;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;
import org.junit.jupiter.api.Test;

/**
 * The perf script writer's own rules, on sessions made here (still running: a running session
 * exports what it has so far): fields, order, domains, ceilings, refusals.
 */
class PerfScriptRulesTest {

    private static final long SESSION = 7;
    private final TestDictionary dictionary = new TestDictionary();
    private final int vmlinux = dictionary.image(0, "[kernel.kallsyms]", ImageKind.KERNEL);
    private final int app = dictionary.image(0, "/usr/bin/app", ImageKind.USER);
    private final int schedule = dictionary.symbol(vmlinux, "schedule");
    private final int work = dictionary.symbol(app, "work");
    private final SessionInfo info = new SessionInfo(SESSION, "test", "host", "x86", "cpu", 1000,
            List.of(NetworkExperiment.CYCLES_100000, NetworkExperiment.INSTRUCTIONS_50000),
            Map.of(0, "host", 1, "guest"), false, dictionary);

    {
        dictionary.process(0, 42, "app");
    }

    private static String export(PerfScriptConsumer script, ReportRequest request) throws ReportException,
            IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        script.content(request, "text").writeTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static ReportRequest all() {
        return new ReportRequest(SESSION, ReportRequest.ALL_DOMAINS, Set.of());
    }

    private PerfScriptConsumer consumer(long maxSamples, long maxFrames, SampleBatch... batches) {
        PerfScriptConsumer script = new PerfScriptConsumer(maxSamples, maxFrames, 1);
        script.sessionStarted(info);
        for (SampleBatch b : batches) {
            script.samples(b);
        }
        return script;
    }

    @Test
    void eachSampleIsOneLineInTheOrderItCameWithPerfsFieldsAndTheTimeCutToMicroseconds() throws Exception {
        SampleBatch b = new TestBatches(SESSION)
                .sample(0, 0, (byte) 0, 0, 0x401234, app, work, 100000, 12_345_678_999_999L, 3, 42, 43)
                .sample(0, 0, (byte) 1, 1, 0xffffffff81000010L, vmlinux, schedule, 50000, 5_000_000L,
                        SampleBatch.UNKNOWN, 42, 42)
                .build();
        String text = export(consumer(10, 10, b), all());
        // comm %16s, tid %5d, [cpu] when known, time %5d.%06d, period %10d, event right-aligned to the longest.
        assertEquals("             app    43 [003] 12345.678999:     100000 CPU_CLK_UNHALTED:            401234"
                + " work (/usr/bin/app)\n"
                + "             app    42     0.005000:      50000     INST_RETIRED:  ffffffff81000010 schedule"
                + " ([kernel.kallsyms])\n", text);
    }

    @Test
    void aSessionWithCallChainsPrintsEveryFrameOnItsOwnLineAndABlankLineAfterEachSample() throws Exception {
        SampleBatch b = new TestBatches(SESSION)
                .sample(0, 0, (byte) 1, 0, 0xffffffff81000010L, vmlinux, schedule, 100000, 2_000_000_000L,
                        SampleBatch.UNKNOWN, 42, 42)
                .flags(SampleBatch.CHAIN_FROM_PC)
                .caller(0x401234, app, work)
                .caller(0x9999, -1, SampleBatch.UNKNOWN)
                .build();
        assertEquals("app    42     2.000000:     100000 CPU_CLK_UNHALTED: \n"
                + "\tffffffff81000010 schedule ([kernel.kallsyms])\n"
                + "\t          401234 work (/usr/bin/app)\n"
                + "\t            9999 [unknown] ([unknown])\n"
                + "\n", export(consumer(10, 10, b), all()));
    }

    @Test
    void aDomainOnlyWritesThatDomainsSamples() throws Exception {
        SampleBatch b = new TestBatches(SESSION)
                .sample(0, 0, (byte) 0, 0, 0x401234, app, work, 1, 1_000L, SampleBatch.UNKNOWN, 42, 42)
                .sample(1, 0, (byte) 0, 0, 0x401234, app, work, 1, 2_000L, SampleBatch.UNKNOWN, 7, 7)
                .build();
        String text = export(consumer(10, 10, b), new ReportRequest(SESSION, 1, Set.of()));
        assertEquals(1, text.lines().count(), text);
        assertTrue(text.startsWith("              :7     7 "), text);
    }

    @Test
    void aSampleOfNoKnownProcessIsNamedAfterItsDomain() throws Exception {
        SampleBatch b = new TestBatches(SESSION).sample(1, 0, (byte) 0, 0, 0x401234, app, work).build();
        assertTrue(export(consumer(10, 10, b), all()).startsWith("           guest    -1 "));
    }

    @Test
    void aSessionPastItsCeilingIsRefusedWholeSayingWhatWasKeptAndWhichSettingToRaise() {
        TestBatches t = new TestBatches(SESSION);
        for (int i = 0; i < 5; i++) {
            t.sample(0, 0, (byte) 0, 0, 0x401234, app, work, 1, i, SampleBatch.UNKNOWN, 42, 42);
        }
        PerfScriptConsumer script = consumer(3, 10, t.build());
        ReportException e = assertThrows(ReportException.class, () -> script.content(all(), "text"));
        assertTrue(e.getMessage().contains("kept only the first 3 samples"), e.getMessage());
        assertTrue(e.getMessage().contains("turned away 2"), e.getMessage());
        assertTrue(e.getMessage().contains("maxSamples 3") && e.getMessage().contains(PerfScriptConsumer.PID),
                e.getMessage());
    }

    @Test
    void framesPastTheirCeilingTurnTheirSampleAwayToo() {
        SampleBatch b = new TestBatches(SESSION)
                .sample(0, 0, (byte) 0, 0, 0x401234, app, work, 1, 1, SampleBatch.UNKNOWN, 42, 42)
                .caller(0x401000, app, work).caller(0x401000, app, work)
                .build();
        ReportException e = assertThrows(ReportException.class,
                () -> consumer(10, 1, b).content(all(), "text"));
        assertTrue(e.getMessage().contains("maxFrames 1"), e.getMessage());
    }

    @Test
    void anotherFormatOrAnyOptionIsRefusedAndACeilingOutOfRangeIsNamed() {
        PerfScriptConsumer script = consumer(10, 10);
        assertThrows(ReportException.class, () -> script.content(all(), "json"));
        assertThrows(ReportException.class,
                () -> script.content(new ReportRequest(SESSION, ReportRequest.ALL_DOMAINS, Set.of("top=3")), "text"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PerfScriptConsumer(0, 10, 1));
        assertTrue(e.getMessage().contains("maxSamples is 0"), e.getMessage());
    }

    @Test
    void noSessionYetSaysHowToGetOne() {
        ReportException e = assertThrows(ReportException.class,
                () -> new PerfScriptConsumer(10, 10, 1).content(all(), "text"));
        assertTrue(e.getMessage().contains("hp:export perfscript text FILE"), e.getMessage());
    }
}

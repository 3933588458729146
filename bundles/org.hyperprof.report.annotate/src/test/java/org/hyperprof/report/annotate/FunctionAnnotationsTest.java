package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.tools.TestPrograms;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;
import org.junit.jupiter.api.Test;

/** The annotation as a service gives hp:annotate's answer, line for line, and its refusals. */
class FunctionAnnotationsTest {
    private static final String LIBJVM = System.getProperty("java.home") + "/lib/server/libjvm.so";

    @Test
    void withNoSessionItSaysWhatToDoFirst() {
        ReportException e = assertThrows(ReportException.class, () -> new FunctionAnnotationsComponent(
                new AnnotateConsumer()).annotate(ReportRequest.LATEST, "main", null, ReportRequest.ALL_DOMAINS,
                        false));
        assertTrue(e.getMessage().startsWith("annotate has no session yet; run a profile first"), e.getMessage());
        assertThrows(ReportException.class, () -> new FunctionAnnotationsComponent(new AnnotateConsumer())
                .annotate(ReportRequest.LATEST, " ", null, ReportRequest.ALL_DOMAINS, false));
    }

    @Test
    void aFunctionOfTheJdksLibjvmIsTheCommandsAnnotation() throws Exception {
        assumeTrue(TestPrograms.binutils(), "binutils (objdump, nm) are not installed");
        assumeTrue(Files.isRegularFile(Path.of(LIBJVM)), "the JDK has no " + LIBJVM);
        assumeTrue(Files.isRegularFile(Path.of("/lib/x86_64-linux-gnu/libc.so.6")), "no Debian x86-64 C library");
        HostServiceImpl hosts = new HostServiceImpl();
        hosts.addModel(new HammerPmuModel(), "org.hyperprof.pmu.amd");
        hosts.addPolicy(new SystemWidePolicy(), "org.hyperprof.vpmu.systemwide");
        hosts.addResolver("elf", new ElfResolver());
        hosts.load("real-elf-userland", null, Map.of(), null);
        ProfilerImpl profiler = new ProfilerImpl(hosts, 1024, 1 << 16, Duration.ofSeconds(20));
        AnnotateConsumer annotate = new AnnotateConsumer();
        try {
            profiler.addResolver("kallsyms", new KallsymsResolver());
            profiler.addResolver("elf", new ElfResolver());
            profiler.addConsumer(AnnotateConsumer.NAME, annotate, Delivery.LOSSLESS);
            SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), 100_000, List.of()),
                    ProgressListener.NONE);
            AnnotatedFunction f = new FunctionAnnotationsComponent(annotate).annotate(summary.sessionId(),
                    "JVM_ArrayCopy", null, ReportRequest.ALL_DOMAINS, false);
            StringBuilder json = new StringBuilder();
            annotate.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS,
                    Set.of("symbol=JVM_ArrayCopy", "format=json")), json);
            assertEquals(AnnotationText.json(annotate.annotation(new ReportRequest(summary.sessionId(),
                    ReportRequest.ALL_DOMAINS, Set.of()), "JVM_ArrayCopy", null, false)), json.toString());
            assertTrue(json.toString().contains("\"samples\":" + f.samples() + ",\"sessionSamples\":"
                    + f.sessionSamples() + ",\"outside\":" + f.outside() + ","), json.toString());
            assertEquals(f.samples(), f.lines().stream().mapToLong(AnnotatedFunction.Line::samples).sum());
            assertTrue(f.lines().stream().allMatch(AnnotatedFunction.Line::isInstruction));
            assertTrue(json.toString().contains("\"address\":\"0x" + Long.toHexString(f.lines().get(0).address())
                    + "\""), json.toString());
        } finally {
            profiler.removeConsumer(AnnotateConsumer.NAME);
        }
    }
}

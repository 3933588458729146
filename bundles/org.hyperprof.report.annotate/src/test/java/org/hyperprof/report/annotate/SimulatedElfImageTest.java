package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

/**
 * The simulated host's real-elf-userland scenario: its guest's user images are this machine's
 * libjvm.so and C library, so a function of them is annotated on the file's own instructions, every
 * sample of it counted on one; its kernels are symbol lists, which have no code to show.
 */
class SimulatedElfImageTest {

    private static final String LIBJVM = System.getProperty("java.home") + "/lib/server/libjvm.so";

    /** The guest's JVM_ArrayCopy and the dom0 kernel's net_tx_action, annotated after a 200 ms profile. */
    @Test
    void aFunctionOfTheJdksLibjvmIsAnnotatedAndAKernelSymbolListIsRefused() throws Exception {
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
            SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), 200_000, List.of()),
                    ProgressListener.NONE);
            assertTrue(summary.completed(), summary.endReason());
            String json = render(annotate, summary.sessionId(), "JVM_ArrayCopy");
            assertTrue(json.contains("\"image\":\"" + Path.of(LIBJVM).normalize() + "\""), json);
            assertTrue(json.contains("\"outside\":0,"), json);
            long samples = Long.parseLong(json.replaceAll("(?s).*?\"samples\":(\\d+),.*", "$1"));
            assertTrue(samples > 10, "the guest's runtime region sampled it: " + json);
            long onInstructions = 0;
            for (String n : json.split("\"samples\":")) {
                if (n.matches("(?s)\\d+,\"instruction\".*")) {
                    onInstructions += Long.parseLong(n.substring(0, n.indexOf(',')));
                }
            }
            assertEquals(samples, onInstructions, "every sample on an instruction of the function");
            ReportException kernel = org.junit.jupiter.api.Assertions.assertThrows(ReportException.class,
                    () -> render(annotate, summary.sessionId(), "net_tx_action"));
            assertTrue(kernel.getMessage().startsWith("cannot annotate net_tx_action: its image"
                    + " vmlinux-2.6.32.59-0.7-xen has no code to disassemble"), kernel.getMessage());
        } finally {
            profiler.removeConsumer(AnnotateConsumer.NAME);
        }
    }

    private static String render(AnnotateConsumer annotate, long session, String symbol) throws Exception {
        StringBuilder out = new StringBuilder();
        annotate.render(new ReportRequest(session, ReportRequest.ALL_DOMAINS, Set.of("symbol=" + symbol,
                "format=json")), out);
        return out.toString();
    }
}

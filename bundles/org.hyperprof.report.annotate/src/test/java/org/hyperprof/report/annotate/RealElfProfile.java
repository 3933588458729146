package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.hypervisor.sim.HostServiceImpl;
import org.hyperprof.pipeline.Delivery;
import org.hyperprof.pmu.amd.HammerPmuModel;
import org.hyperprof.profiler.ProfilerImpl;
import org.hyperprof.symbols.elf.ElfResolver;
import org.hyperprof.symbols.kallsyms.KallsymsResolver;
import org.hyperprof.testing.tools.TestPrograms;
import org.hyperprof.vpmu.systemwide.SystemWidePolicy;

/**
 * A profile of the simulated real-elf-userland host (its guest's user images are this machine's
 * libjvm.so and C library) counted by an annotate consumer: what the tests of annotation on real
 * ELF images start from. Skipped where binutils or those files are missing.
 */
final class RealElfProfile implements AutoCloseable {
    static final String LIBJVM = System.getProperty("java.home") + "/lib/server/libjvm.so";

    private final ProfilerImpl profiler;
    final AnnotateConsumer annotate;
    final SessionSummary summary;

    private RealElfProfile(ProfilerImpl profiler, AnnotateConsumer annotate, SessionSummary summary) {
        this.profiler = profiler;
        this.annotate = annotate;
        this.summary = summary;
    }

    /** A profile of {@code micros} simulated microseconds; close it to take the consumer away. */
    static RealElfProfile run(long micros) throws Exception {
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
        profiler.addResolver("kallsyms", new KallsymsResolver());
        profiler.addResolver("elf", new ElfResolver());
        profiler.addConsumer(AnnotateConsumer.NAME, annotate, Delivery.LOSSLESS);
        try {
            SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), micros, List.of()),
                    ProgressListener.NONE);
            return new RealElfProfile(profiler, annotate, summary);
        } catch (Exception | Error e) {
            profiler.removeConsumer(AnnotateConsumer.NAME);
            throw e;
        }
    }

    @Override
    public void close() {
        profiler.removeConsumer(AnnotateConsumer.NAME);
    }
}

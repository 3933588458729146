package org.hyperprof.profiler;

import java.time.Duration;
import java.util.List;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.junit.jupiter.api.AfterEach;

/** What the opcontrol tests start from: a profiler on a fake host, deactivated after each test. */
abstract class OpcontrolOnFakeHost {
    final FakeHost host;
    final FakeXenoprof xen;
    final ProfilerImpl profiler;

    OpcontrolOnFakeHost(FakeHost host) {
        this.host = host;
        this.xen = host.xenoprof;
        this.profiler = new ProfilerImpl(host.service(), 64, 8, Duration.ofSeconds(2));
    }

    @AfterEach
    void stop() {
        profiler.deactivate();
    }

    /** opcontrol with {@code args}, as domain {@code domid} runs it. */
    OpcontrolResult op(int domid, String... args) {
        return profiler.opcontrol(domid, List.of(args));
    }
}

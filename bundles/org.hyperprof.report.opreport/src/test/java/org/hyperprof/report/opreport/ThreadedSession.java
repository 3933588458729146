package org.hyperprof.report.opreport;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;

/**
 * A recording of one host (domain 0) whose samples carry process, thread and CPU, as perf's do
 * (the vCPU column is the CPU), with round numbers for the report controls' tests.
 *
 * <pre>
 * counter 0 samples   nginx (pid 100)          redis (pid 200)
 *                     tid 100 cpu 0  tid 101 cpu 1   tid 200 cpu 1   total
 *   libc.so.6 memcpy         4              2               6          12
 *   vmlinux do_syscall       2                              3           5
 *   nginx ngx_process                       3                           3
 *   total                    6              5               9          20
 * </pre>
 */
final class ThreadedSession {
    /** The host's domain, and the pids of its two processes. */
    static final int HOST = 0;
    static final int NGINX = 100;
    static final int REDIS = 200;

    final TestDictionary dictionary = new TestDictionary();
    final SessionInfo info = new SessionInfo(7, "perf.data", "box", "x86-64/generic", "a CPU", 3000,
            List.of(NetworkExperiment.CYCLES_100000), Map.of(HOST, "host"), false, dictionary);

    /** A consumer holding the table's samples (the session still running); once per session. */
    OpreportConsumer consumer() {
        dictionary.process(HOST, NGINX, "nginx");
        dictionary.process(HOST, REDIS, "redis");
        TestBatches b = new TestBatches(info.sessionId());
        int libc = dictionary.image(HOST, "libc.so.6", ImageKind.USER);
        int memcpy = dictionary.symbol(libc, "memcpy");
        add(b, 4, libc, memcpy, CpuMode.USER, NGINX, 100, 0);
        add(b, 2, libc, memcpy, CpuMode.USER, NGINX, 101, 1);
        add(b, 6, libc, memcpy, CpuMode.USER, REDIS, 200, 1);
        int vmlinux = dictionary.image(HOST, "vmlinux", ImageKind.KERNEL);
        int syscall = dictionary.symbol(vmlinux, "do_syscall");
        add(b, 2, vmlinux, syscall, CpuMode.KERNEL, NGINX, 100, 0);
        add(b, 3, vmlinux, syscall, CpuMode.KERNEL, REDIS, 200, 1);
        int nginx = dictionary.image(HOST, "nginx", ImageKind.USER);
        add(b, 3, nginx, dictionary.symbol(nginx, "ngx_process"), CpuMode.USER, NGINX, 101, 1);
        OpreportConsumer consumer = new OpreportConsumer();
        consumer.sessionStarted(info);
        consumer.samples(b.build());
        return consumer;
    }

    private static void add(TestBatches b, int times, int image, int symbol, CpuMode mode, int pid, int tid,
            int cpu) {
        for (int t = 0; t < times; t++) {
            b.sample(HOST, cpu, (byte) mode.code(), 0, 0x1000L + b.size(), image, symbol, 1, 1_000L * b.size(),
                    cpu, pid, tid);
        }
    }
}

package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Per sample, aggregation (flat counts, per-PC counts, call-graph arcs) allocates nothing. */
class HotPathAllocationTest {

    @Test
    void samplesOfRowsArcsAndAddressesSeenBeforeAllocateNothing() {
        java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
                "the JVM reports per-thread allocation");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        StackSession s = new StackSession(70);
        Batches b = new Batches(70);
        for (int round = 0; round < 1000; round++) {
            s.stacks(b);
            b.stack(1, StackSession.DOMU, 2, CpuMode.USER, 0, 0x08048410L, s.rcv22, s.checksum, s.rcv22, s.parse,
                    s.rcv22, s.parse, s.rcv22, s.main);
        }
        SampleBatch batch = b.build();
        SessionAggregate aggregate = new SessionAggregate(s.info);
        aggregate.accept(batch); // learns every row, arc, address and (domain, vcpu) pair
        aggregate.accept(batch);
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        aggregate.accept(batch);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertEquals(3L * batch.size, aggregate.snapshot().samples());
        assertTrue(allocated < 1024, batch.size + " samples allocated " + allocated + " bytes");
    }
}

package org.hyperprof.report.opreport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.testing.alloc.Allocations;
import org.junit.jupiter.api.Test;

/** Per sample, aggregation (flat counts, per-PC counts, call-graph arcs) allocates nothing. */
class HotPathAllocationTest {

    @Test
    void samplesOfRowsArcsAndAddressesSeenBeforeAllocateNothing() {
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
        long allocated = Allocations.leastBytes(() -> aggregate.accept(batch));
        assertEquals((2L + Allocations.WINDOWS) * batch.size, aggregate.snapshot().samples());
        assertTrue(allocated < 1024, batch.size + " samples allocated " + allocated + " bytes");
    }
}

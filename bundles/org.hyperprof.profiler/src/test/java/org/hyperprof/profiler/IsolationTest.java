package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.pipeline.BatchBuilder;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.pipeline.SymbolTables;
import org.junit.jupiter.api.Test;

/**
 * A domain's daemon only maps and reads its own buffers (passive ones only in the primary), and its
 * batches carry only its own domain id (passive ids only from the primary's drain).
 */
class IsolationTest {

    @Test
    void aSessionGivesPassiveViewsOnlyToItsPrimary() {
        FakeHost host = FakeHost.withGuests();
        Dictionary dictionary = new Dictionary();
        SessionInfo info = new SessionInfo(1, "simulator", "fake", "i386/p6", "PIII", 2800, List.of(), Map.of(), true,
                dictionary);
        List<SampleBatch> out = new ArrayList<>();
        Session s = new Session(1, host, 0, info, dictionary, new BatchBuilder(1, 8, (b, lease) -> out.add(b)), new SymbolTables());
        synchronized (s.collector) {
            assertNull(s.passiveView(1, 2, null), "domain 1 is not the primary: no view of passive domain 2 for it");
            PassiveView v = s.passiveView(0, 2, null);
            assertNotNull(v);
            assertEquals(2, v.domid(), "the primary's drain tags passive samples with the passive domain's id");
        }
    }

    @Test
    void everySampleAGuestsDaemonDrainsCarriesTheGuestsIdAndItsOwnImages() throws Exception {
        try (Rig rig = new Rig(FakeHost.withGuests(), 64)) {
            Rig.ok(rig.op(0, "--start-daemon", "--active-domains=0,1", "--passive-domains=2"));
            Rig.ok(rig.op(1, "--start-daemon"));
            Rig.ok(rig.op(0, "--start"));
            rig.xen.buffer(1, 0).sample(FakeHost.KERNEL, 1, 0);
            rig.xen.buffer(1, 1).sample(FakeHost.USER + 0x160, 0, 0);
            rig.xen.buffer(2, 0).sample(FakeHost.KERNEL, 1, 0);
            rig.xen.virq(1, 0);
            rig.xen.virq(1, 1);
            assertEquals(0, rig.xen.buffer(2, 0).tail(), "the guest's VIRQs never reach the passive buffer");
            rig.xen.virq(0, 0);
            rig.finish();
            var d = rig.consumer.info.dictionary();
            List<String> seen = new ArrayList<>();
            for (SampleBatch b : rig.consumer.batches) {
                for (int i = 0; i < b.size; i++) {
                    assertEquals(b.domain[i], d.imageDomain(b.image[i]));
                    seen.add(b.domain[i] + "/" + b.vcpu[i]);
                }
            }
            assertEquals(List.of("1/0", "1/1", "2/0"), seen);
            assertTrue(rig.xen.calls.stream().filter(c -> c.startsWith("1:[map")).allMatch(c -> c.equals("1:[map 1]")),
                    "domain 1 maps only its own buffers: " + rig.xen.calls);
        }
    }
}

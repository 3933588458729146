package org.hyperprof.report.flamegraph;

import static org.hyperprof.report.flamegraph.Batches.caller;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.LongIntTable;
import org.hyperprof.testing.alloc.Allocations;
import org.hyperprof.testing.sample.TestDictionary;
import org.junit.jupiter.api.Test;

/** Interning stacks and counting samples: the per-sample path. */
class StackAggregateTest {

    @Test
    void aStackSeenBeforeIsTheSameNodeAndAddsNoNode() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(n.batch());
        int nodes = aggregate.snapshot().trie().size();
        aggregate.accept(n.batch());
        StackAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(nodes, s.trie().size());
        // root, 2 domains, 2 vCPUs, under each a pid and a comm node (-1: the simulator names no
        // threads), 15 code frames.
        assertEquals(24, nodes);
        assertEquals(300, s.samples());
    }

    @Test
    void stacksAreInternedRootFirstDomainThenVcpuThenProcessThenOutermostCaller() {
        StackTrie trie = new StackTrie();
        int domain = trie.child(StackTrie.ROOT, 3);
        int vcpu = trie.child(domain, 1);
        int pid = trie.child(vcpu, 4242);
        int comm = trie.child(pid, 0);
        int caller = trie.child(comm, StackTrie.codeFrame(7, 2));
        int leaf = trie.child(caller, StackTrie.codeFrame(-1, 2));
        assertEquals(leaf, trie.child(trie.child(trie.child(trie.child(trie.child(trie.child(StackTrie.ROOT, 3), 1),
                4242), 0), 7), ~2));
        assertEquals(StackTrie.DOMAIN_DEPTH, trie.depth(domain));
        assertEquals(StackTrie.VCPU_DEPTH, trie.depth(vcpu));
        assertEquals(StackTrie.PID_DEPTH, trie.depth(pid));
        assertEquals(StackTrie.COMM_DEPTH, trie.depth(comm));
        assertEquals(StackTrie.FIRST_CODE_DEPTH + 1, trie.depth(leaf));
        assertEquals(caller, trie.parent(leaf));
        assertEquals(~2, trie.frame(leaf));
        // The same frame under another parent is another stack.
        assertNotEquals(caller, trie.child(trie.child(trie.child(trie.child(domain, 0), 4242), 0), 7));
    }

    @Test
    void codeWithoutSymbolIsItsImagesOwnFrame() {
        assertEquals(12, StackTrie.codeFrame(12, 3));
        assertEquals(~3, StackTrie.codeFrame(-1, 3));
        assertNotEquals(StackTrie.codeFrame(-1, 3), StackTrie.codeFrame(-1, 4));
    }

    @Test
    void countingStacksSeenBeforeAllocatesNothingPerSample() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        Batches big = new Batches(1);
        for (int i = 0; i < 200; i++) {
            n.samples(big);
        }
        SampleBatch batch = big.build(); // 30 000 samples
        for (int i = 0; i < 20; i++) {
            aggregate.accept(batch); // every stack known, the JIT warmed up
        }
        long allocated = Allocations.leastBytes(() -> aggregate.accept(batch));
        assertTrue(allocated < 4096, allocated + " bytes for " + batch.size + " samples");
        assertEquals((20L + Allocations.WINDOWS) * batch.size, aggregate.snapshot().samples());
    }

    @Test
    void aSampleWithIdsOutsideTheDictionaryIsRejectedAndCountedTheRestCounts() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(new Batches(1).add(3, NetworkStacks.DOMU, CpuMode.USER, n.rcv22, n.main)
                .add(1, NetworkStacks.DOMU, CpuMode.USER, 99, -1)
                .add(2, NetworkStacks.DOMU, CpuMode.USER, n.rcv22, n.main).build());
        StackAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(5, s.samples());
        assertEquals(1, s.rejectedSamples());
        assertEquals("batch 1 sample 3: image id 99 is outside the dictionary's 7 images",
                s.firstRejection());
    }

    @Test
    void aSymbolOfAnotherImageIsRejected() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(new Batches(1).add(1, NetworkStacks.DOMU, CpuMode.USER, n.libc, n.main).build());
        assertEquals(1, aggregate.snapshot().rejectedSamples());
        assertTrue(aggregate.snapshot().firstRejection().contains("belongs to image " + n.rcv22));
    }

    @Test
    void aCallerWithABadIdRejectsTheWholeSampleNotHalfAStack() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(new Batches(1)
                .add(1, NetworkStacks.DOMU, CpuMode.KERNEL, n.domUKernel, n.tcpRcv, caller(n.domUKernel, n.ipRcv),
                        caller(n.domUKernel, 4242))
                .build());
        StackAggregate.Snapshot s = aggregate.snapshot();
        assertEquals(0, s.samples());
        assertTrue(s.firstRejection().contains("caller 1's symbol id 4242"), s.firstRejection());
        assertEquals(1, s.trie().size(), "nothing interned for a rejected sample");
    }

    @Test
    void aCallChainOutsideTheBatchArraysIsRejected() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        SampleBatch lying = new SampleBatch(1, 1, new int[] { 1 }, new int[] { 0 }, new byte[] { 0 },
                new byte[] { 0 }, new long[] { 0 }, new int[] { n.rcv22 }, new int[] { n.main }, new long[] { 1 },
                new long[1], new int[1], new int[1], new int[1], new byte[1], new int[] { 0, 2 }, new long[2],
                new int[2], new int[2], new byte[2]);
        // The arrays are the source's: a faulty source can change them after the constructor checked them.
        lying.chainStart[1] = 5;
        aggregate.accept(lying);
        assertEquals(1, aggregate.snapshot().rejectedSamples());
        assertTrue(aggregate.snapshot().firstRejection().contains("outside the batch's 2 chain entries"));
    }

    @Test
    void badDomainVcpuCounterAndModeAreRejectedWithTheReason() {
        NetworkStacks n = new NetworkStacks(1);
        String[] expected = { "domain 65536 is not a 16-bit domain id", "vcpu -1 is negative",
                "counter 1 is not one of the session's 1 counters", "mode -1 is negative" };
        Batches[] bad = { new Batches(1).add(1, 0x10000, CpuMode.USER, n.rcv22, n.main),
                new Batches(1).add(1, 1, -1, CpuMode.USER, 0, n.rcv22, n.main),
                new Batches(1).add(1, 1, 0, CpuMode.USER, 1, n.rcv22, n.main), null };
        for (int i = 0; i < 3; i++) {
            StackAggregate aggregate = new StackAggregate(n.info);
            aggregate.accept(bad[i].build());
            assertTrue(aggregate.snapshot().firstRejection().contains(expected[i]),
                    aggregate.snapshot().firstRejection());
        }
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(new SampleBatch(1, 1, new int[] { 1 }, new int[] { 0 }, new byte[] { -1 }, new byte[] { 0 },
                new long[] { 0 }, new int[] { n.rcv22 }, new int[] { n.main }, new long[] { 1 }, new long[1], new int[1],
                new int[1], new int[1], new byte[1], new int[2], new long[0], new int[0], new int[0], new byte[0]));
        assertTrue(aggregate.snapshot().firstRejection().contains(expected[3]));
    }

    @Test
    void symbolsAddedToTheDictionaryMidSessionAreAccepted() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(n.batch());
        int late = n.dictionary.symbol(n.rcv22, "late_symbol");
        aggregate.accept(new Batches(1).add(2, NetworkStacks.DOMU, CpuMode.USER, n.rcv22, late).build());
        assertEquals(0, aggregate.snapshot().rejectedSamples());
        assertEquals(152, aggregate.snapshot().samples());
    }

    @Test
    void aSnapshotDoesNotChangeWhenSamplesKeepArriving() {
        NetworkStacks n = new NetworkStacks(1);
        StackAggregate aggregate = new StackAggregate(n.info);
        aggregate.accept(n.batch());
        StackAggregate.Snapshot before = aggregate.snapshot();
        long[] counts = before.selfSamples()[0].clone();
        aggregate.accept(n.batch());
        assertEquals(150, before.samples());
        assertArrayEquals(counts, before.selfSamples()[0]);
    }

    @Test
    void moreCountersThanXenoprofCanNameAreRefused() {
        List<CounterConfig> many = Collections.nCopies(257, NetworkStacks.CYCLES_100000);
        SessionInfo info = new SessionInfo(1, "simulator", "h", "i386/p6", "PIII", 1, many, Map.of(), false,
                new TestDictionary());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new StackAggregate(info));
        assertTrue(e.getMessage().contains("at most 256"), e.getMessage());
    }

    @Test
    void theChildMapKeepsEveryEdgeAcrossGrowth() {
        LongIntTable map = new LongIntTable(4);
        for (int i = 0; i < 10_000; i++) {
            map.put(StackTrie.edge(i % 97, i * 31 - 5000), i);
        }
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, map.get(StackTrie.edge(i % 97, i * 31 - 5000), -1));
        }
        assertEquals(-1, map.get(StackTrie.edge(98, 1), -1));
        assertEquals(10_000, map.size());
        assertThrows(IllegalArgumentException.class, () -> map.put(-5, 1));
    }
}

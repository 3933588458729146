package org.hyperprof.testing.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.EventDescriptor;
import org.hyperprof.api.pmu.UnitMask;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.Accounting;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.sample.TestDictionary;
import org.junit.jupiter.api.Test;

/**
 * The rules every sample consumer keeps (the {@link SampleConsumer} and {@link SampleBatch}
 * javadoc). A consumer bundle's test extends this class, makes its consumer and says how to read
 * what it made of a session (its report, its file); the rules compare those, so they hold for any
 * output.
 */
public abstract class ConsumerContract {

    /** A new consumer, with nothing collected. */
    protected abstract SampleConsumer newConsumer();

    /**
     * What the consumer made of session {@code session}, after its end, as text to compare: for a
     * consumer that renders, its report of all domains; a consumer that does not says how to read its
     * output by overriding this.
     */
    protected String output(SampleConsumer consumer, long session) throws Exception {
        if (consumer instanceof ReportRenderer renderer) {
            return rendered(renderer, session);
        }
        throw new UnsupportedOperationException(getClass().getSimpleName() + ": " + consumer.getClass().getName()
                + " does not render; override output to read what it made");
    }

    /** {@link #output} of a consumer that renders: its report of all domains. */
    protected static String rendered(ReportRenderer renderer, long session) throws IOException, ReportException {
        StringBuilder out = new StringBuilder();
        renderer.render(new ReportRequest(session, ReportRequest.ALL_DOMAINS, Set.of()), out);
        return out.toString();
    }

    private static final UnitMask NO_MASK = new UnitMask("none", UnitMask.Kind.MANDATORY, 0,
            List.of(new UnitMask.Value(0, "no unit mask")));
    private static final CounterConfig CYCLES = new CounterConfig(0, new EventDescriptor("CPU_CLK_UNHALTED", 0x79, 1,
            1, NO_MASK, null, "cycles"), 100000, 0, true, true);

    private final TestDictionary names = new TestDictionary();
    private final int kernel = names.image(0, "vmlinux", ImageKind.KERNEL);
    private final int xen = names.image(0, "xen-syms", ImageKind.HYPERVISOR);
    private final int schedule = names.symbol(kernel, "schedule");
    private final int tcp = names.symbol(kernel, "tcp_v4_rcv");
    private final int hypercall = names.symbol(xen, "do_grant_table_op");

    private SessionInfo session(long id) {
        return new SessionInfo(id, "contract", "host", "i386/p6", "PIII", 2000, List.of(CYCLES),
                Map.of(0, "Domain-0", 1, "domU"), false, names);
    }

    private static SessionSummary ended(long id, long samples) {
        return new SessionSummary(id, new Accounting(samples, samples, 0, 0, 0), List.of(), List.of(), null, null, 0,
                SessionSummary.COMPLETED);
    }

    /** Two batches of session {@code id}: kernel and hypervisor samples, some with callers. */
    private List<SampleBatch> batches(long id) {
        TestBatches first = new TestBatches(id);
        for (int i = 0; i < 7; i++) {
            first.sample(0, 0, (byte) 1, 0, 0xc0100000L + i, kernel, schedule).caller(0xc0200000L, kernel, tcp);
        }
        first.sample(1, 0, (byte) 2, 0, 0xff100010L, xen, hypercall);
        TestBatches second = new TestBatches(id);
        for (int i = 0; i < 5; i++) {
            second.sample(1, 1, (byte) 1, 0, 0xc0200004L, kernel, tcp);
        }
        return List.of(first.build(), second.build());
    }

    /** Fills every column of a batch with other values, as a source filling the lent arrays again does. */
    private static void refill(SampleBatch b) {
        Arrays.fill(b.domain, 0, b.size, 1);
        Arrays.fill(b.symbol, 0, b.size, 0);
        Arrays.fill(b.image, 0, b.size, 0);
        Arrays.fill(b.pc, 0, b.size, 0x1234);
        Arrays.fill(b.mode, 0, b.size, (byte) 0);
        Arrays.fill(b.flags, 0, b.size, (byte) 0);
        Arrays.fill(b.chainSymbol, 0, b.chainEntries(), 0);
        Arrays.fill(b.chainMode, 0, b.chainEntries(), (byte) 0);
    }

    /**
     * Session {@code id} as a source gives it: started, {@code batches} delivered in order (each
     * handed to {@code afterCall} once its call returned), ended with all their samples delivered.
     */
    private void feed(SampleConsumer c, long id, List<SampleBatch> batches, Consumer<SampleBatch> afterCall) {
        c.sessionStarted(session(id));
        for (SampleBatch b : batches) {
            c.samples(b);
            afterCall.accept(b);
        }
        c.sessionEnded(ended(id, batches.stream().mapToLong(b -> b.size).sum()));
    }

    /** A new consumer that saw session {@code id} whole ({@link #feed}). */
    private SampleConsumer fed(long id, List<SampleBatch> batches) {
        SampleConsumer c = newConsumer();
        feed(c, id, batches, b -> { });
        return c;
    }

    @Test
    public void aConsumerKeepsNothingOfABatchPastTheCallThatLentIt() throws Exception {
        SampleConsumer kept = fed(1, batches(1));
        SampleConsumer lent = newConsumer();
        feed(lent, 1, batches(1), ConsumerContract::refill);
        assertEquals(output(kept, 1), output(lent, 1),
                "the report changed when the batches' arrays were filled again after the calls returned");
    }

    @Test
    public void twoSessionsWhoseCallsInterleaveKeepTheirOwnSamples() throws Exception {
        SampleConsumer mixed = newConsumer();
        mixed.sessionStarted(session(1));
        mixed.sessionStarted(session(2));
        List<SampleBatch> one = batches(1);
        List<SampleBatch> two = batches(2);
        mixed.samples(one.get(0));
        mixed.samples(two.get(0));
        mixed.samples(one.get(1));
        mixed.sessionEnded(ended(1, 13));
        mixed.samples(two.get(1));
        mixed.sessionEnded(ended(2, 13));
        SampleConsumer alone = fed(2, batches(2));
        assertEquals(output(alone, 2), output(mixed, 2), "session 2's report holds session 1's samples");
    }

    @Test
    public void aSessionWithNoSamplesStartsAndEndsAndItsOutputIsMadeOrRefusedSayingWhy() throws Exception {
        SampleConsumer c = newConsumer();
        c.sessionStarted(session(3));
        c.sessionEnded(ended(3, 0));
        try {
            output(c, 3);
        } catch (ReportException e) {
            assertTrue(String.valueOf(e.getMessage()).contains("session 3"), "a refusal names the session: "
                    + e.getMessage());
        }
    }

    /**
     * Samples at addresses no symbol covers, with callers: named as address symbols (as a perf
     * import names them) when {@code named}, else {@link SessionDictionary#NO_SYMBOL}; flags and
     * callers' modes as a perf import sets them.
     */
    private SampleBatch unresolved(long id, boolean named) {
        TestBatches b = new TestBatches(id);
        for (int i = 0; i < 3; i++) {
            long pc = 0xc0300000L + i;
            int own = named ? names.address(kernel, pc) : SessionDictionary.NO_SYMBOL;
            int caller = named ? names.address(kernel, 0xc0400000L) : SessionDictionary.NO_SYMBOL;
            b.sample(0, 0, (byte) 1, 0, pc, kernel, own).flags(SampleBatch.CHAIN_FROM_PC)
                    .caller(0xc0400000L, kernel, caller, 1).caller(0xc0200000L, kernel, tcp, SampleBatch.UNKNOWN);
        }
        return b.build();
    }

    @Test
    public void anAddressSymbolCountsAsTheAddressOfNoSymbolItNames() throws Exception {
        SampleConsumer named = fed(5, List.of(unresolved(5, true)));
        SampleConsumer plain = fed(5, List.of(unresolved(5, false)));
        assertEquals(output(plain, 5), output(named, 5),
                "a consumer counts an address symbol (an address no symbol covers) as it counts no symbol");
    }

    @Test
    public void callsMayComeFromAnotherThreadThanTheOneThatMadeTheConsumer() throws Exception {
        SampleConsumer c = newConsumer();
        Thread delivery = new Thread(() -> feed(c, 4, batches(4), b -> { }), "hyperprof-consumer-contract");
        delivery.start();
        delivery.join(30_000);
        SampleConsumer same = fed(4, batches(4));
        assertEquals(output(same, 4), output(c, 4));
    }
}

package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.testing.sample.RecordingConsumer;
import org.junit.jupiter.api.Test;

/** Each opcontrol step issues the hypercalls of the XenLinux driver (xenoprof-facts §8.2), in order, as its domain. */
class OpcontrolSequenceTest extends OpcontrolOnFakeHost {
    OpcontrolSequenceTest() {
        super(new FakeHost());
    }

    @Test
    void primaryStartDaemonWritesActiveListThenGetsBufferBindsAndSetsUpCounters() {
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=0,1");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("init", "reset_active_list", "set_active(0)", "set_active(1)", "get_buffer(16)", "[map 0]",
                "[bind]", "reserve_counters", "counter(0,event=0x79,count=100000,um=0x0,k=1,u=1)", "counter(1,off)",
                "setup_events", "enable_virq"), xen.callsBy(0));
    }

    @Test
    void activeListWithoutThePrimaryAppendsItLast() {
        assertTrue(op(0, "--start-daemon", "--active-domains=1").ok());
        assertEquals(List.of("init", "reset_active_list", "set_active(1)", "set_active(0)"), xen.callsBy(0).subList(0, 4));
    }

    @Test
    void activeIdsMaySeparateByPunctuationOrSpace() {
        assertTrue(op(0, "--start-daemon", "--active-domains=1 0").ok());
        assertEquals(List.of("init", "reset_active_list", "set_active(1)", "set_active(0)", "get_buffer(16)"),
                xen.callsBy(0).subList(0, 5));
    }

    @Test
    void primaryWithoutActiveListMakesItselfTheOnlyActiveDomainAfterBinding() {
        assertTrue(op(0, "--start-daemon").ok());
        assertEquals(List.of("init", "get_buffer(16)", "[map 0]", "[bind]", "reset_active_list", "set_active(0)",
                "reserve_counters", "counter(0,event=0x79,count=100000,um=0x0,k=1,u=1)", "counter(1,off)",
                "setup_events", "enable_virq"), xen.callsBy(0));
    }

    @Test
    void nonPrimaryStartDaemonMakesOnlyUnprivilegedCallsAndIgnoresDomainLists() {
        assertTrue(op(0, "--start-daemon", "--active-domains=0,1").ok());
        OpcontrolResult r = op(1, "--start-daemon", "--active-domains=0,1");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("init", "get_buffer(16)", "[map 1]", "[bind]", "enable_virq"), xen.callsBy(1));
        assertTrue(r.output().contains("not the primary: its driver ignores active_domains"), r.output());
    }

    @Test
    void eventsConfigureEveryCounterAndLeaveTheRestDisabled() {
        assertTrue(op(0, "--start-daemon", "--event=INST_RETIRED:6000:0:0:1", "--event=CPU_CLK_UNHALTED:50000").ok());
        assertEquals(List.of("counter(0,event=0xc0,count=6000,um=0x0,k=0,u=1)",
                "counter(1,event=0x79,count=50000,um=0x0,k=1,u=1)"),
                xen.callsBy(0).stream().filter(c -> c.startsWith("counter")).toList());
    }

    @Test
    void bufferSizeOptionAsksXenForMoreSlots() {
        assertTrue(op(0, "--start-daemon", "--buffer-size=1024").ok());
        assertTrue(xen.callsBy(0).contains("get_buffer(1024)"));
        assertEquals(1024, xen.buffers.get(0)[0].size());
    }

    @Test
    void startIsAHypercallOnlyInThePrimary() {
        op(0, "--start-daemon", "--active-domains=0,1");
        op(1, "--start-daemon");
        xen.calls.clear();
        OpcontrolResult primary = op(0, "--start");
        OpcontrolResult guest = op(1, "--start");
        assertTrue(primary.ok() && guest.ok(), primary.output() + guest.output());
        assertEquals(List.of("0:start"), xen.calls);
        assertTrue(guest.output().contains("makes no hypercall for --start"), guest.output());
        assertEquals(1, host.groundTruthResets, "ground truth restarts when the primary starts sampling");
    }

    @Test
    void stopIsAHypercallOnlyInThePrimary() {
        op(0, "--start-daemon", "--active-domains=0,1");
        op(1, "--start-daemon");
        op(0, "--start");
        op(1, "--start");
        xen.calls.clear();
        OpcontrolResult guest = op(1, "--stop");
        OpcontrolResult primary = op(0, "--stop");
        assertTrue(primary.ok() && guest.ok());
        assertEquals(List.of("0:stop"), xen.calls);
        assertTrue(guest.output().contains("makes no hypercall for --stop"), guest.output());
    }

    @Test
    void shutdownOfThePrimaryWhileProfilingStopsDisablesReleasesAndUnbinds() {
        op(0, "--start-daemon");
        op(0, "--start");
        xen.calls.clear();
        OpcontrolResult r = op(0, "--shutdown");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("stop", "disable_virq", "release_counters", "[unbind]"), xen.callsBy(0));
        assertTrue(r.output().contains("unmap the buffers of domain 0"), r.output());
    }

    @Test
    void shutdownOfANonPrimaryDisablesItsVirqAndUnbindsWithoutPrivilegedCalls() {
        op(0, "--start-daemon", "--active-domains=0,1");
        op(1, "--start-daemon");
        xen.calls.clear();
        assertTrue(op(1, "--shutdown").ok());
        assertEquals(List.of("1:disable_virq", "1:[unbind]"), xen.calls);
    }

    @Test
    void deinitOfThePrimaryGivesUpTheRoleWithTheShutdownOp() {
        op(0, "--start-daemon");
        op(0, "--shutdown");
        xen.calls.clear();
        assertTrue(op(0, "--deinit").ok());
        assertEquals(List.of("0:shutdown"), xen.calls);
        assertEquals(-1, xen.primary);
    }

    @Test
    void aSecondDaemonRunReusesTheLoadedDriverButAsksForBuffersAgain() {
        op(0, "--start-daemon");
        op(0, "--shutdown");
        xen.calls.clear();
        assertTrue(op(0, "--start-daemon").ok());
        assertEquals("get_buffer(16)", xen.callsBy(0).get(0), "no second XENOPROF_init while the driver stays loaded");
    }

    @Test
    void initActionLoadsTheDriverOnce() {
        assertTrue(op(1, "--init").ok());
        assertTrue(op(1, "--init").ok());
        assertEquals(List.of("init"), xen.callsBy(1));
    }

    @Test
    void statusAndResetMakeNoHypercalls() {
        op(0, "--start-daemon");
        xen.calls.clear();
        OpcontrolResult status = op(0, "--status");
        OpcontrolResult reset = op(0, "--reset");
        assertTrue(status.ok() && reset.ok());
        assertEquals(List.of(), xen.calls);
        assertTrue(status.output().contains("primary profiler"), status.output());
        assertTrue(status.output().contains("Xenoprof on host fake-host: state READY"), status.output());
    }

    @Test
    void primaryStartDaemonStartsTheSessionThatConsumersHearOf() throws Exception {
        RecordingConsumer c = new RecordingConsumer();
        profiler.addConsumer("rec", c);
        assertTrue(op(0, "--start-daemon").ok());
        assertTrue(waitFor(() -> c.info != null), "the consumer hears sessionStarted");
        assertEquals("simulator", c.info.source());
        assertEquals("i386/p6", c.info.cpuType());
        assertEquals("PIII", c.info.cpuName());
        assertEquals(2800, c.info.mhz());
        assertEquals("Domain-0", c.info.domainName(0));
        assertEquals("domU-rcv", c.info.domainName(1));
        assertEquals(1, c.info.counters().size());
        assertTrue(c.info.groundTruth());
    }

    static boolean waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        return org.hyperprof.testing.sample.RecordingConsumer.waitFor(condition);
    }
}

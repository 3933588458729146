package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.junit.jupiter.api.Test;

/**
 * The passive_domains write and the call-trace depth issue exactly the XenLinux driver's hypercalls
 * (xenoprof-facts §8.2, §7), in its order, as the primary; the other domains' drivers ignore both.
 */
class PassiveAndCallgraphSequenceTest extends OpcontrolOnFakeHost {
    private static final String COUNTERS_0 = "counter(0,event=0x79,count=100000,um=0x0,k=1,u=1)";

    PassiveAndCallgraphSequenceTest() {
        super(FakeHost.withGuests());
    }

    @Test
    void thePassiveWriteResetsTheListThenSetsEachDomainWith2048SlotsAndMapsItsBuffers() {
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=0,1", "--passive-domains=2,3");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("init", "reset_active_list", "set_active(0)", "set_active(1)", "reset_passive_list",
                "set_passive(2,2048)", "[map 2]", "set_passive(3,2048)", "[map 3]", "get_buffer(16)", "[map 0]", "[bind]",
                "reserve_counters", COUNTERS_0, "counter(1,off)", "setup_events", "enable_virq"), xen.callsBy(0));
        assertEquals(2048, xen.buffers.get(2)[0].size(), "the driver asks for 2048 slots per passive vCPU buffer");
        assertTrue(r.output().contains("passive domains [2, 3]"), r.output());
    }

    @Test
    void theAliasesDomainsAndDomainsImagesWriteTheSamePassiveList() {
        assertTrue(op(0, "--start-daemon", "--domains=2", "--domains-images=vmlinux-2").ok());
        assertTrue(xen.callsBy(0).containsAll(List.of("reset_passive_list", "set_passive(2,2048)", "[map 2]")));
    }

    @Test
    void withoutAPassiveListThePassiveFileIsNotWritten() {
        assertTrue(op(0, "--start-daemon").ok());
        assertFalse(xen.callsBy(0).contains("reset_passive_list"), xen.callsBy(0).toString());
    }

    @Test
    void anEmptyPassiveListOnlyResetsIt() {
        assertTrue(op(0, "--start-daemon", "--passive-domains=").ok());
        assertEquals(List.of("init", "reset_passive_list", "get_buffer(16)"), xen.callsBy(0).subList(0, 3));
    }

    @Test
    void callgraphIssuesSetBacktraceAfterTheDefaultActiveListAndBeforeReserveCounters() {
        assertTrue(op(0, "--start-daemon", "--callgraph=6").ok());
        assertEquals(List.of("init", "get_buffer(16)", "[map 0]", "[bind]", "reset_active_list", "set_active(0)",
                "set_backtrace(6)", "reserve_counters", COUNTERS_0, "counter(1,off)", "setup_events", "enable_virq"),
                xen.callsBy(0));
        assertEquals(6, xen.depth);
    }

    @Test
    void aDepthOfZeroIsNotPassedToXen() {
        assertTrue(op(0, "--start-daemon", "--callgraph=0").ok());
        assertFalse(xen.callsBy(0).stream().anyMatch(c -> c.startsWith("set_backtrace")), xen.callsBy(0).toString());
    }

    @Test
    void aRefusedDepthLeavesTheDriverWithoutCallTracesAndTheDaemonStarts() {
        xen.fail(0, XenoprofOp.SET_BACKTRACE, Errno.EINVAL.ret());
        OpcontrolResult r = op(0, "--start-daemon", "--callgraph=6");
        assertTrue(r.ok(), "the driver tolerates the refusal: " + r.output());
        assertTrue(r.output().contains("XENOPROF_set_backtrace, 6) = -22 (EINVAL, Invalid argument)"), r.output());
        assertTrue(r.output().contains("sets its backtrace_depth back to 0"), r.output());
        assertEquals(List.of("set_backtrace(6)", "reserve_counters"), xen.callsBy(0).subList(6, 8),
                "no second set_backtrace: the driver only forgets its own depth");
    }

    @Test
    void aDepthLeftFromAnEarlierSessionIsReported() {
        op(0, "--start-daemon", "--callgraph=4");
        op(0, "--shutdown");
        OpcontrolResult r = op(0, "--start-daemon");
        assertTrue(r.ok(), r.output());
        assertTrue(r.output().contains("call-trace depth is still 4 from an earlier session"), r.output());
    }

    @Test
    void aGuestsDriverIgnoresPassiveListsAndDepthAndSaysWhatXenWouldAnswer() {
        op(0, "--start-daemon", "--active-domains=0,1");
        OpcontrolResult r = op(1, "--start-daemon", "--passive-domains=2", "--callgraph=3");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("init", "get_buffer(16)", "[map 1]", "[bind]", "enable_virq"), xen.callsBy(1));
        assertTrue(r.output().contains("ignores passive_domains"), r.output());
        assertTrue(r.output().contains("passes no call-trace depth"), r.output());
        assertTrue(r.output().contains("XENOPROF_set_passive by domain 1 would return -1 (EPERM"), r.output());
    }

    @Test
    void aFailedSetPassiveAfterAnAcceptedOneUnmapsEmptiesXensListAgainAndFailsTheWriteWithEinval() {
        OpcontrolResult r = op(0, "--start-daemon", "--passive-domains=2,9");
        assertFalse(r.ok());
        assertEquals(List.of("init", "reset_passive_list", "set_passive(2,2048)", "[map 2]", "set_passive(9,2048)",
                "reset_passive_list"), xen.callsBy(0));
        assertTrue(r.output().contains("XENOPROF_set_passive, {domain_id 9, max_samples 2048}) = -22 (EINVAL"),
                r.output());
        assertTrue(r.output().contains("passive_domains fails with -22 (EINVAL, Invalid argument)"), r.output());
        assertTrue(r.output().contains("domain 9 does not exist on this host"), r.output());
        assertEquals(List.of(), xen.passive, "Xen never fills passive buffers the driver does not map");
    }

    @Test
    void aSetPassiveRefusedFirstLeavesOnlyTheReset() {
        xen.fail(0, XenoprofOp.SET_PASSIVE, Errno.EPERM.ret());
        OpcontrolResult r = op(0, "--start-daemon", "--passive-domains=2");
        assertFalse(r.ok());
        assertEquals(List.of("init", "reset_passive_list", "set_passive(2,2048)"), xen.callsBy(0));
    }

    @Test
    void junkOrTooManyPassiveIdsFailBeforeAnyHypercall() {
        OpcontrolResult junk = op(0, "--start-daemon", "--passive-domains=2,db");
        assertFalse(junk.ok());
        assertTrue(junk.output().contains("/dev/oprofile/passive_domains fails with -22 (EINVAL"), junk.output());
        StringBuilder ids = new StringBuilder();
        for (int i = 1; i <= 26; i++) {
            ids.append(i).append(',');
        }
        OpcontrolResult many = op(0, "--start-daemon", "--passive-domains=" + ids);
        assertFalse(many.ok());
        assertTrue(many.output().contains("more than 25"), many.output());
        assertEquals(List.of(), xen.calls);
    }

    @Test
    void thePrimarysShutdownUnmapsItsPassiveListWithoutAHypercallOfItsOwn() {
        op(0, "--start-daemon", "--passive-domains=2");
        xen.calls.clear();
        OpcontrolResult r = op(0, "--shutdown");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("disable_virq", "release_counters", "[unbind]"), xen.callsBy(0),
                "release_counters resets the passive list in Xen");
        assertTrue(r.output().contains("unmap the buffers of passive domain(s) [2]"), r.output());
    }

    @Test
    void listsWrittenWithoutAnActionAreWhatTheNextStartDaemonUses() {
        OpcontrolResult w = op(0, "--active-domains=0,1", "--passive-domains=2");
        assertTrue(w.ok(), w.output());
        assertEquals(List.of("init", "reset_active_list", "set_active(0)", "set_active(1)", "reset_passive_list",
                "set_passive(2,2048)", "[map 2]"), xen.callsBy(0));
        xen.calls.clear();
        assertTrue(op(0, "--start-daemon").ok());
        assertEquals(List.of("get_buffer(16)", "[map 0]", "[bind]", "reserve_counters"), xen.callsBy(0).subList(0, 4),
                "the driver remembers that active_domains was written (active_defined)");
    }

    @Test
    void aGuestsListWriteSilentlyDoesNothing() {
        op(0, "--start-daemon", "--active-domains=0,1");
        xen.calls.clear();
        OpcontrolResult r = op(1, "--active-domains=1,2");
        assertTrue(r.ok(), r.output());
        assertEquals(List.of("1:init"), xen.calls, "only the module load; the file write does nothing in a guest");
        assertTrue(r.output().contains("ignores active_domains"), r.output());
    }

    @Test
    void onlyThePrimaryMapsAnotherDomainsBuffersAndOnlyAfterSetPassive() {
        op(0, "--start-daemon", "--active-domains=0,1", "--passive-domains=2");
        op(1, "--start-daemon");
        for (String call : xen.calls) {
            if (call.contains("[map ")) {
                int mapper = Integer.parseInt(call.substring(0, call.indexOf(':')));
                int owner = Integer.parseInt(call.substring(call.indexOf("[map ") + 5, call.indexOf(']')));
                assertTrue(mapper == owner || mapper == 0 && owner == 2, "mapping " + call);
            }
        }
        int setPassive = xen.calls.indexOf("0:set_passive(2,2048)");
        assertTrue(setPassive >= 0 && setPassive < xen.calls.indexOf("0:[map 2]"));
    }

    @Test
    void aWrongPassiveImageFailsBeforeAnyHypercall() {
        OpcontrolResult module = op(0, "--start-daemon", "--passive-domains=2", "--passive-images=netback.ko");
        assertFalse(module.ok());
        assertTrue(module.output().contains("'netback.ko' is a module image of domain 2, not its kernel"),
                module.output());
        assertTrue(module.output().contains("domain 2's kernel is vmlinux-2"), module.output());
        OpcontrolResult missing = op(0, "--start-daemon", "--passive-domains=2", "--passive-images=/no/such/map");
        assertFalse(missing.ok());
        assertTrue(missing.output().contains("neither an image of that domain (its kernel is vmlinux-2) nor a"
                + " readable symbol file"), missing.output());
        OpcontrolResult extra = op(0, "--start-daemon", "--passive-domains=2", "--passive-images=vmlinux-2,x");
        assertFalse(extra.ok());
        assertTrue(extra.output().contains("2 images for 1 passive domain(s)"), extra.output());
        assertEquals(List.of("init"), xen.callsBy(0), "only the module load happened");
    }

    @Test
    void aPassiveDomainThatIsAlsoActiveIsWarnedAboutAndItsGetBufferFailsWithEbusy() {
        OpcontrolResult r = op(0, "--start-daemon", "--active-domains=0,2", "--passive-domains=2");
        assertTrue(r.ok(), "the driver accepts both writes: " + r.output());
        assertTrue(r.output().contains("domain 2 is in both the active and the passive list"), r.output());
        OpcontrolResult guest = op(2, "--start-daemon");
        assertFalse(guest.ok());
        assertTrue(guest.output().contains("XENOPROF_get_buffer, {max_samples 16}) = -16 (EBUSY"), guest.output());
    }
}

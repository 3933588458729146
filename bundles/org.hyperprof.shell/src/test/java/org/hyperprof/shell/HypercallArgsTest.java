package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.pmu.EventTable;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofIbsCounter;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;

class HypercallArgsTest {
    private final EventTable table = Fakes.table();

    private HypercallArgs.Built build(XenoprofOp op, String... words) throws UsageException {
        return HypercallArgs.build(op, List.of(words), table);
    }

    private XenoprofCounter counter(String... words) throws UsageException {
        return assertInstanceOf(XenoprofCounter.class, build(XenoprofOp.COUNTER, words).arg());
    }

    /** The fields of the counter argument as one line, so that a test states them all at once. */
    private String fields(String... words) throws UsageException {
        XenoprofCounter c = counter(words);
        return "ind " + c.ind + " event 0x" + Integer.toHexString(c.event) + " count " + c.count + " um 0x"
                + Long.toHexString(c.unitMask) + " kernel " + c.kernel + " user " + c.user + " enabled " + c.enabled;
    }

    @Test
    void counterSpecResolvesTheEventNameToItsCodeInTheModelsTable() throws UsageException {
        assertEquals("ind 1 event 0x29 count 5000 um 0x8 kernel 1 user 0 enabled 1",
                fields("1", "L2_LD:5000:0x08:1:0"));
    }

    @Test
    void counterSpecWithoutUnitMaskTakesTheEventsDefaultAndCountsBothModes() throws UsageException {
        assertEquals("ind 0 event 0x29 count 5000 um 0xf kernel 1 user 1 enabled 1", fields("0", "L2_LD:5000"));
    }

    @Test
    void counterFromRawNumbersIsSentAsGiven() throws UsageException {
        assertEquals("ind 0 event 0x79 count 100000 um 0x0 kernel 1 user 1 enabled 1",
                fields("0", "100000", "0x79", "0", "1", "1"));
    }

    @Test
    void counterIndexBeyondTheArchLimitStillGoesOutForXensE2big() throws UsageException {
        assertEquals(8, counter("8", "CPU_CLK_UNHALTED:100000").ind);
    }

    @Test
    void counterBelowTheMinimumIsSentWithANoteThatOpcontrolWouldRefuseIt() throws UsageException {
        HypercallArgs.Built b = build(XenoprofOp.COUNTER, "0", "CPU_CLK_UNHALTED:1000");
        assertEquals(1000, ((XenoprofCounter) b.arg()).count);
        assertEquals(List.of("note: count 1000 is below CPU_CLK_UNHALTED's minimum 6000; opcontrol would refuse it,"
                + " Xen does not check"), b.notes());
    }

    @Test
    void counterWithAUnitMaskTheEventLacksGetsANote() throws UsageException {
        HypercallArgs.Built b = build(XenoprofOp.COUNTER, "0", "L2_LD:5000:0x10");
        assertEquals(1, b.notes().size());
        assertTrue(b.notes().get(0).startsWith("note: unit mask 0x10 is not allowed for L2_LD (any combination"),
                b.notes().get(0));
    }

    @Test
    void counterOnACounterTheEventCannotUseGetsANote() throws UsageException {
        assertEquals(List.of("note: FLOPS can only be counted on counter(s) 0, not 1"),
                build(XenoprofOp.COUNTER, "1", "FLOPS:3000").notes());
    }

    @Test
    void counterWithAnUnknownEventPointsToHpEvents() {
        String m = assertThrows(UsageException.class, () -> build(XenoprofOp.COUNTER, "0", "CYCLES:100000"))
                .getMessage();
        assertTrue(m.startsWith("event 'CYCLES' is not in the host's event table; hp:events lists the events"), m);
    }

    @Test
    void counterByNameWithoutAHostAsksForRawNumbers() {
        String m = assertThrows(UsageException.class,
                () -> HypercallArgs.build(XenoprofOp.COUNTER, List.of("0", "CPU_CLK_UNHALTED:100000"), null)).getMessage();
        assertTrue(m.startsWith("no host is loaded, so event names cannot be resolved"), m);
    }

    @Test
    void counterWithTheWrongNumberOfWordsShowsBothForms() {
        String m = assertThrows(UsageException.class, () -> build(XenoprofOp.COUNTER, "0", "1", "2")).getMessage();
        assertEquals("expected counter <ind> <EVENT:count[:um[:kernel[:user]]]> or counter <ind> <count> <event> <um>"
                + " <kernel> <user>, got '0 1 2'", m);
    }

    @Test
    void counterFlagsAreZeroOrOne() {
        assertEquals("the kernel flag (0 or 1) must be from 0 to 1, got 2", assertThrows(UsageException.class,
                () -> build(XenoprofOp.COUNTER, "0", "100000", "0x79", "0", "2", "1")).getMessage());
    }

    @Test
    void badEventSpecSyntaxIsTheSpecsOwnMessage() {
        String m = assertThrows(UsageException.class, () -> build(XenoprofOp.COUNTER, "0", "CPU_CLK_UNHALTED:0"))
                .getMessage();
        assertEquals("count 0 in 'CPU_CLK_UNHALTED:0' must be a positive sampling period", m);
    }

    @Test
    void getBufferAsksForSixteenSamplesLikeTheDaemonUnlessTold() throws UsageException {
        assertEquals(16, ((XenoprofGetBuffer) build(XenoprofOp.GET_BUFFER).arg()).maxSamples);
        assertEquals(64, ((XenoprofGetBuffer) build(XenoprofOp.GET_BUFFER, "64").arg()).maxSamples);
    }

    @Test
    void setPassiveAsksFor2048SamplesLikeTheDriverUnlessTold() throws UsageException {
        XenoprofPassive p = (XenoprofPassive) build(XenoprofOp.SET_PASSIVE, "2").arg();
        assertEquals(2, p.domainId);
        assertEquals(2048, p.maxSamples);
        assertEquals(100, ((XenoprofPassive) build(XenoprofOp.SET_PASSIVE, "2", "100").arg()).maxSamples);
        assertThrows(UsageException.class, () -> build(XenoprofOp.SET_PASSIVE));
    }

    @Test
    void setActiveTakesABareDomainIdAndSetBacktraceADepth() throws UsageException {
        assertEquals(Integer.valueOf(1), build(XenoprofOp.SET_ACTIVE, "1").arg());
        assertEquals(Long.valueOf(4), build(XenoprofOp.SET_BACKTRACE, "4").arg());
        assertEquals("XENOPROF_set_active takes <domid>, got nothing",
                assertThrows(UsageException.class, () -> build(XenoprofOp.SET_ACTIVE)).getMessage());
    }

    @Test
    void initGetsAnEmptyStructForXenToFill() throws UsageException {
        assertInstanceOf(XenoprofInit.class, build(XenoprofOp.INIT).arg());
    }

    @Test
    void ibsCounterIsAllZeroOrSixNumbers() throws UsageException {
        assertEquals(0, ((XenoprofIbsCounter) build(XenoprofOp.IBS_COUNTER).arg()).maxCntOp);
        assertEquals(4, ((XenoprofIbsCounter) build(XenoprofOp.IBS_COUNTER, "1", "0", "0", "4", "0", "0").arg()).maxCntOp);
        assertThrows(UsageException.class, () -> build(XenoprofOp.IBS_COUNTER, "1"));
    }

    @Test
    void opsWithoutArgumentPassNullAndRefuseWords() throws UsageException {
        for (XenoprofOp op : List.of(XenoprofOp.RESET_ACTIVE_LIST, XenoprofOp.RESET_PASSIVE_LIST,
                XenoprofOp.RESERVE_COUNTERS, XenoprofOp.SETUP_EVENTS, XenoprofOp.ENABLE_VIRQ, XenoprofOp.START,
                XenoprofOp.STOP, XenoprofOp.DISABLE_VIRQ, XenoprofOp.RELEASE_COUNTERS, XenoprofOp.SHUTDOWN,
                XenoprofOp.GET_IBS_CAPS)) {
            assertNull(build(op).arg(), op.cName());
            assertEquals(op.cName() + " takes no argument, got '1'",
                    assertThrows(UsageException.class, () -> build(op, "1")).getMessage());
        }
    }

    @Test
    void resultTextIsTheNumberAndForAnErrorItsErrnoNameAndText() {
        assertEquals("0", HypercallArgs.resultText(0));
        assertEquals("5", HypercallArgs.resultText(5));
        assertEquals("-1 (EPERM: Operation not permitted)", HypercallArgs.resultText(-1));
        assertEquals("-7 (E2BIG: Argument list too long)", HypercallArgs.resultText(-7));
        assertEquals("-16 (EBUSY: Device or resource busy)", HypercallArgs.resultText(-16));
        assertEquals("-22 (EINVAL: Invalid argument)", HypercallArgs.resultText(-22));
        assertEquals("-99 (unknown error)", HypercallArgs.resultText(-99));
    }

    @Test
    void outputsAreReadBackFromTheStructsXenFilled() {
        XenoprofInit init = new XenoprofInit();
        init.numEvents = 2;
        init.isPrimary = 1;
        init.cpuType = "i386/p6";
        assertEquals("num_events 2, is_primary 1, cpu_type i386/p6", HypercallArgs.outputs(XenoprofOp.INIT, init));
        XenoprofGetBuffer b = new XenoprofGetBuffer(16);
        b.nbuf = 2;
        b.bufsize = 4096;
        b.bufGmaddr = 0xabc000L;
        assertEquals("nbuf 2, bufsize 4096, buf_gmaddr 0xabc000", HypercallArgs.outputs(XenoprofOp.GET_BUFFER, b));
        assertNull(HypercallArgs.outputs(XenoprofOp.START, null));
    }

    @Test
    void inputsEchoTheCounterStructFieldByField() throws UsageException {
        assertEquals("ind 0, count 100000, event 0x79, unit_mask 0x0, kernel 1, user 1, enabled 1",
                HypercallArgs.inputs(counter("0", "CPU_CLK_UNHALTED:100000:0:1:1")));
    }
}

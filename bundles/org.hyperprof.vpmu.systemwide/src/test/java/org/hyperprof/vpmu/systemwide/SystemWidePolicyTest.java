package org.hyperprof.vpmu.systemwide;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.pmu.PhysicalPmu;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.vpmu.OverflowRoute;
import org.hyperprof.api.vpmu.PolicyHost;
import org.hyperprof.api.vpmu.PolicySession;
import org.hyperprof.testing.alloc.Allocations;
import org.hyperprof.testing.vpmu.VirtualPmuPolicyContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class SystemWidePolicyTest {

    /** P6 PerfCtr0/1 and PerfEvtSel0/1, IA32_MISC_ENABLE, arch perfmon global control, PPC970 MMCR0. */
    private static final int[] PMU_REGISTERS = {0xC1, 0xC2, 0x186, 0x187, 0x1A0, 0x38F, 795};
    private static final int DOM0 = 0;
    private static final int DOMU = 1;
    private static final int IDLE = -1;

    /** A host of two physical CPUs that records every attempt to reach its counters or charge it. */
    static final class RecordingHost implements PolicyHost {
        final List<String> touched = new ArrayList<>();

        @Override
        public PmuModel model() {
            touched.add("model()");
            return null;
        }

        @Override
        public int pcpuCount() {
            return 2;
        }

        @Override
        public PhysicalPmu pmu(int pcpu) {
            touched.add("pmu(" + pcpu + ")");
            return null;
        }

        @Override
        public void chargeHypervisor(int pcpu, long cycles, String symbol) {
            touched.add("chargeHypervisor(" + pcpu + ", " + cycles + ", " + symbol + ")");
        }

        @Override
        public void injectVirtualInterrupt(int domid, int vcpu) {
            touched.add("injectVirtualInterrupt(" + domid + ", " + vcpu + ")");
        }

        @Override
        public boolean xenoprofProfiling() {
            touched.add("xenoprofProfiling()");
            return true;
        }

        @Override
        public PhysicalPmu newPmuContext() {
            touched.add("newPmuContext()");
            return null;
        }

        @Override
        public long cost(String name) {
            touched.add("cost(" + name + ")");
            return 0;
        }

        @Override
        public String option(String key, String otherwise) {
            touched.add("option(" + key + ")");
            return otherwise;
        }

        @Override
        public boolean xenoprofOwnsPmu() {
            touched.add("xenoprofOwnsPmu()");
            return true;
        }
    }

    private final SystemWidePolicy policy = new SystemWidePolicy();
    private final RecordingHost host = new RecordingHost();
    private final PolicySession session = policy.open(host);

    @Test
    void isRegisteredAsSystemwide() {
        VirtualPmuPolicyContract.assertRegisteredAs("systemwide", policy);
    }

    @Test
    void descriptionIsOneLineNamingXenoprof() {
        String description = policy.description();
        assertFalse(description.isBlank());
        assertFalse(description.contains("\n"), description);
        assertTrue(description.startsWith("Xenoprof"), description);
        assertTrue(description.contains("guests see no PMU"), description);
    }

    @Test
    void openingWithoutAHostIsRejected() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> policy.open(null));
        assertTrue(e.getMessage().contains("host"), e.getMessage());
    }

    @Test
    void vcpuSwitchLeavesTheCountersRunningAndChargesNothing() {
        session.vcpuSwitch(0, DOM0, 0, DOMU, 0);
        session.vcpuSwitch(1, DOMU, 1, IDLE, 0);
        session.vcpuSwitch(1, IDLE, 0, DOM0, 1);
        assertEquals(List.of(), host.touched);
    }

    @Test
    void hypervisorEntryAndExitLeaveTheCountersRunningAndChargeNothing() {
        session.hypervisorEntry(0, DOMU, 0);
        session.hypervisorExit(0, DOMU, 0);
        session.hypervisorEntry(1, DOM0, 1);
        session.hypervisorExit(1, DOM0, 1);
        assertEquals(List.of(), host.touched);
    }

    @Test
    void guestReadOfAnyPmuRegisterReturnsZero() {
        for (int register : PMU_REGISTERS) {
            assertEquals(0, session.guestRead(0, DOMU, 0, register), "register 0x" + Integer.toHexString(register));
            assertEquals(0, session.guestRead(1, DOM0, 1, register), "register 0x" + Integer.toHexString(register));
        }
        assertEquals(List.of(), host.touched, "a guest read never reaches the hypervisor's counters");
    }

    @Test
    void miscEnableReadsWithPerformanceMonitoringAvailableClear() {
        assertEquals(0, session.guestRead(0, DOMU, 0, 0x1A0) & (1L << 7));
    }

    @Test
    void guestWriteIsIgnoredAndDoesNotReadBack() {
        for (int register : PMU_REGISTERS) {
            session.guestWrite(0, DOMU, 0, register, 0xFFFF_FFFF_FFL);
            assertEquals(0, session.guestRead(0, DOMU, 0, register), "register 0x" + Integer.toHexString(register));
        }
        assertEquals(List.of(), host.touched, "a guest write never reaches the hypervisor's counters");
    }

    @Test
    void guestsDoNotSeeAPmu() {
        assertFalse(session.guestsSeePmu());
    }

    @ParameterizedTest
    @EnumSource(CpuMode.class)
    void everyOverflowBecomesAXenoprofSample(CpuMode mode) {
        for (int counter = 0; counter < 4; counter++) {
            assertEquals(OverflowRoute.XENOPROF, session.overflow(0, DOMU, 0, counter, mode));
            assertEquals(OverflowRoute.XENOPROF, session.overflow(1, DOM0, 1, counter, mode));
        }
        assertEquals(List.of(), host.touched, "no virtual interrupt is injected and nothing is charged");
    }

    @Test
    void overflowWhileIdleStillGoesToXenoprofWhichDropsIt() {
        assertEquals(OverflowRoute.XENOPROF, session.overflow(1, IDLE, 0, 0, CpuMode.HYPERVISOR));
    }

    static Stream<Arguments> sessionCalls() {
        return Stream.of(
                Arguments.of("vcpuSwitch", (Consumer<PolicySession>) s -> s.vcpuSwitch(0, DOM0, 0, DOMU, 0)),
                Arguments.of("hypervisorEntry", (Consumer<PolicySession>) s -> s.hypervisorEntry(0, DOMU, 0)),
                Arguments.of("hypervisorExit", (Consumer<PolicySession>) s -> s.hypervisorExit(0, DOMU, 0)),
                Arguments.of("guestRead", (Consumer<PolicySession>) s -> s.guestRead(0, DOMU, 0, 0xC1)),
                Arguments.of("guestWrite", (Consumer<PolicySession>) s -> s.guestWrite(0, DOMU, 0, 0xC1, 1)),
                Arguments.of("guestsSeePmu", (Consumer<PolicySession>) PolicySession::guestsSeePmu),
                Arguments.of("overflow", (Consumer<PolicySession>) s -> s.overflow(0, DOMU, 0, 0, CpuMode.USER)));
    }

    @ParameterizedTest(name = "{0} after close")
    @MethodSource("sessionCalls")
    void callAfterCloseIsAnIllegalState(String call, Consumer<PolicySession> action) {
        session.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> action.accept(session));
        assertTrue(e.getMessage().contains("session is closed"), e.getMessage());
        assertTrue(e.getMessage().contains("open a new session"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} before close")
    @MethodSource("sessionCalls")
    void callBeforeCloseIsAccepted(String call, Consumer<PolicySession> action) {
        assertDoesNotThrow(() -> action.accept(session));
    }

    @Test
    void closingTwiceIsHarmless() {
        session.close();
        session.close();
        assertThrows(IllegalStateException.class, session::guestsSeePmu);
    }

    @Test
    void closingOneSessionLeavesAnotherOpen() {
        PolicySession other = policy.open(new RecordingHost());
        session.close();
        assertSame(OverflowRoute.XENOPROF, other.overflow(0, DOMU, 0, 0, CpuMode.KERNEL));
    }

    @Test
    void physicalCpuOutsideTheHostIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> session.overflow(2, DOMU, 0, 0, CpuMode.USER));
        assertEquals("physical CPU 2 does not exist: the host has 2 (0 to 1)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> session.vcpuSwitch(-1, DOM0, 0, DOMU, 0));
    }

    @Test
    void hotPathCallsDoNotAllocate() {
        long[] sink = {exercise(10_000)}; // let the calls compile before measuring
        long allocated = Allocations.leastBytes(() -> sink[0] += exercise(100_000));
        assertTrue(allocated < 1024, "100 000 rounds of policy calls allocated " + allocated + " bytes");
        assertEquals(0, sink[0]);
    }

    private long exercise(int rounds) {
        long sink = 0;
        for (int i = 0; i < rounds; i++) {
            int pcpu = i & 1;
            session.vcpuSwitch(pcpu, DOM0, 0, DOMU, 0);
            session.hypervisorEntry(pcpu, DOMU, 0);
            session.hypervisorExit(pcpu, DOMU, 0);
            session.guestWrite(pcpu, DOMU, 0, 0xC1, i);
            sink += session.guestRead(pcpu, DOMU, 0, 0xC1);
            sink += session.overflow(pcpu, DOMU, 0, 0, CpuMode.KERNEL).ordinal() - OverflowRoute.XENOPROF.ordinal();
        }
        return sink;
    }
}

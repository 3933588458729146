package org.hyperprof.hypervisor.xenoprof;

import static org.hyperprof.hypervisor.xenoprof.Steps.CLK_UNHALTED;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOM0;
import static org.hyperprof.hypervisor.xenoprof.Steps.DOMU;
import static org.hyperprof.hypervisor.xenoprof.Steps.OTHER;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.pmu.Signal;
import org.hyperprof.api.xenoprof.DomainType;
import org.hyperprof.api.xenoprof.Errno;
import org.hyperprof.api.xenoprof.SharedBuffer;
import org.hyperprof.api.xenoprof.XenoprofCounter;
import org.hyperprof.api.xenoprof.XenoprofGetBuffer;
import org.hyperprof.api.xenoprof.XenoprofInit;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.api.xenoprof.XenoprofPassive;
import org.hyperprof.api.xenoprof.XenoprofState;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The hypercall rules of sections 3, 4.1 and 6 of the facts, one rule per test. */
class XenoprofHypercallTest {

    @Nested
    class Dispatcher {
        @Test
        void opOutOfRangeIsEinvalBeforeThePrivilegeCheck() {
            Steps s = Steps.standard();
            assertEquals(Errno.EINVAL.ret(), s.core.hypercall(OTHER, -1, null));
            assertEquals(Errno.EINVAL.ret(), s.core.hypercall(OTHER, 18, null));
            assertEquals(Errno.EINVAL.ret(), s.core.hypercall(DOM0, Integer.MIN_VALUE, null));
        }

        @Test
        void everyPrivilegedOpIsEpermBeforeAnyPrimaryExistsEvenForDom0() {
            Steps s = Steps.standard();
            for (XenoprofOp op : XenoprofOp.values()) {
                if (op.privileged()) {
                    assertEquals(Errno.EPERM.ret(), s.call(DOM0, op, null), op.cName());
                }
            }
            assertEquals(-1, s.core.primary());
        }

        @Test
        void privilegeIsCheckedBeforeTheArgument() {
            Steps s = Steps.standard().initialized(DOM0);
            assertEquals(Errno.EPERM.ret(), s.call(DOMU, XenoprofOp.SET_ACTIVE, "not a domid"));
            assertEquals(Errno.EPERM.ret(), s.call(DOMU, XenoprofOp.COUNTER, null));
        }

        @Test
        void missingOrWronglyTypedArgumentIsEfault() {
            Steps s = Steps.standard();
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.INIT, null));
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.INIT, new XenoprofGetBuffer(16)));
            assertEquals(Errno.EFAULT.ret(), s.call(DOMU, XenoprofOp.GET_BUFFER, null));
            s.initialized(DOM0);
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, 3L));
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, OTHER));
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.SET_BACKTRACE, 4));
            s.reserved();
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.COUNTER, null));
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.IBS_COUNTER, Steps.counter(0, 0x79, 1000)));
        }

        @Test
        void aHypercallFromADomainThatDoesNotExistIsATypedError() {
            Steps s = Steps.standard();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> s.call(42, XenoprofOp.INIT, new XenoprofInit()));
            assertTrue(e.getMessage().contains("domain 42 does not exist"), e.getMessage());
        }
    }

    @Nested
    class Init {
        @Test
        void initFillsNumEventsCpuTypeAndMakesTheHardwareDomainPrimary() {
            Steps s = Steps.standard();
            XenoprofInit in = s.init(DOM0);
            assertEquals(2, in.numEvents);
            assertEquals(FakeModel.CPU_TYPE, in.cpuType);
            assertEquals(1, in.isPrimary);
            assertEquals(DOM0, s.core.primary());
            assertEquals(XenoprofState.INITIALIZED, s.core.state());
        }

        @Test
        void aGuestsInitSucceedsWithoutMakingItPrimaryOrChangingTheState() {
            Steps s = Steps.standard();
            XenoprofInit in = s.init(DOMU);
            assertEquals(0, in.isPrimary);
            assertEquals(2, in.numEvents);
            assertEquals(-1, s.core.primary());
            assertEquals(XenoprofState.IDLE, s.core.state());
        }

        @Test
        void thePrimaryStaysPrimaryAndOnlyTheHardwareDomainCanBecomeIt() {
            Steps s = Steps.standard();
            s.init(DOM0);
            assertEquals(1, s.init(DOM0).isPrimary);
            assertEquals(0, s.init(DOMU).isPrimary);
            assertEquals(DOM0, s.core.primary());
        }

        @Test
        void initWithoutACpuModelIsEnodevAndTheArgumentIsCheckedFirst() {
            FakeMachine m = new FakeMachine(null, 1).domain(0, 1);
            XenoprofCore core = new XenoprofCore(m);
            assertEquals(Errno.EFAULT.ret(), core.hypercall(DOM0, XenoprofOp.INIT, null));
            assertEquals(Errno.ENODEV.ret(), core.hypercall(DOM0, XenoprofOp.INIT, new XenoprofInit()));
            assertEquals(-1, core.primary());
            assertEquals(XenoprofState.IDLE, core.state());
        }

        @Test
        void cpuTypeIsCutToSixtyThreeCharacters() {
            String longName = "x".repeat(80);
            XenoprofCore core = new XenoprofCore(new FakeMachine(new FakeModel(2, longName), 1).domain(0, 1));
            XenoprofInit in = new XenoprofInit();
            core.hypercall(DOM0, XenoprofOp.INIT, in);
            assertEquals(63, in.cpuType.length());
        }

        @Test
        void quirkA_primaryReinitWhileProfilingForcesInitializedAndLeavesTheCountersRunning() {
            Steps s = Steps.profiling();
            s.init(DOM0);
            assertEquals(XenoprofState.INITIALIZED, s.core.state());
            assertEquals("start", last(s.machine.fakePmu(0).steps), "nothing stopped the counters");
            assertTrue(s.core.nmiCallbackInstalled(), "the NMI callback stays installed");
            // The LAPIC NMI stays reserved, so the session can never reserve counters again.
            assertEquals(Errno.EBUSY.ret(), s.call(DOM0, XenoprofOp.RESERVE_COUNTERS, null));
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.RELEASE_COUNTERS, null));
        }

        @Test
        void shutdownClearsThePrimaryDepthAndListsButStaysInitialized() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 8L);
            s.ok(DOM0, XenoprofOp.SHUTDOWN, null);
            assertEquals(XenoprofState.INITIALIZED, s.core.state(), "nothing returns to IDLE");
            assertEquals(-1, s.core.primary());
            assertEquals(0, s.core.backtraceDepth());
            assertEquals(0, s.core.activeListSize());
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.RESERVE_COUNTERS, null));
            assertEquals(1, s.init(DOM0).isPrimary, "dom0 can become primary again");
        }
    }

    @Nested
    class Lists {
        @Test
        void quirkB_listResetsAndSetBacktraceHaveNoStateCheck() {
            Steps s = Steps.profiling();
            s.ok(DOM0, XenoprofOp.RESET_ACTIVE_LIST, null);
            s.ok(DOM0, XenoprofOp.RESET_PASSIVE_LIST, null);
            s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 3L);
            assertEquals(XenoprofState.PROFILING, s.core.state());
            assertEquals(3, s.core.backtraceDepth());
        }

        @Test
        void quirkC_setActiveKeepsDuplicates() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.ok(DOM0, XenoprofOp.SET_ACTIVE, DOMU);
            assertArrayEquals(new int[] {DOM0, DOMU, DOMU}, s.core.activeList());
            assertEquals(3, s.core.activeListSize());
        }

        @Test
        void setActiveReadsASixteenBitDomidAndRefusesAnUnknownDomain() {
            Steps s = Steps.standard();
            s.init(DOM0);
            s.ok(DOM0, XenoprofOp.SET_ACTIVE, 0x10000 + DOMU);
            assertArrayEquals(new int[] {DOMU}, s.core.activeList());
            assertEquals(Errno.EINVAL.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, 42));
            assertEquals(Errno.EINVAL.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, XenoprofCore.IDLE_DOMID));
        }

        @Test
        void theActiveListHoldsAtMostTwentyFiveAndTheArgumentIsCheckedBeforeTheLimit() {
            Steps s = Steps.standard();
            s.init(DOM0);
            for (int i = 0; i < 25; i++) {
                s.ok(DOM0, XenoprofOp.SET_ACTIVE, DOMU);
            }
            assertEquals(Errno.E2BIG.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, DOMU));
            assertEquals(Errno.EFAULT.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, null));
            assertEquals(25, s.core.activeListSize());
        }

        @Test
        void thePassiveListHoldsAtMostTwentyFiveAndTheLimitIsCheckedBeforeTheArgument() {
            FakeMachine m = FakeMachine.standard();
            for (int d = 10; d < 36; d++) {
                m.domain(d, 1);
            }
            Steps s = new Steps(m);
            s.init(DOM0);
            for (int d = 10; d < 35; d++) {
                s.setPassive(d, 2048);
            }
            assertEquals(Errno.E2BIG.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(35, 2048)));
            assertEquals(Errno.E2BIG.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, null));
            assertEquals(25, s.core.passiveList().length);
        }

        @Test
        void quirkD_enableVirqTwiceCountsTwiceSoStartNoLongerWaitsForTheOtherDomain() {
            Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(100000);
            s.enabled(DOM0, DOM0);
            assertEquals(2, s.core.activated());
            s.ok(DOM0, XenoprofOp.START, null);
            assertEquals(DomainType.IGNORED, s.core.domainType(DOMU), "dom3 never enabled its VIRQ");
        }

        @Test
        void quirkF_resetActiveListResetsOnlyReadyEntriesButEmptiesTheListAlways() {
            Steps s = Steps.standard().initialized(DOM0);
            s.ok(DOM0, XenoprofOp.SET_ACTIVE, OTHER);
            s.setPassive(OTHER, 2048); // dom5 listed active but never ready, and PASSIVE
            s.reserved().programmed(100000).enabled(DOM0);
            assertEquals(DomainType.ACTIVE, s.core.domainType(DOM0));

            s.ok(DOM0, XenoprofOp.RESET_ACTIVE_LIST, null);

            assertEquals(0, s.core.activeListSize());
            assertEquals(0, s.core.activated());
            assertEquals(DomainType.IGNORED, s.core.domainType(DOM0), "the ready entry was reset");
            assertEquals(DomainType.PASSIVE, s.core.domainType(OTHER), "the unready entry's domain was left alone");
        }

        @Test
        void startSucceedsWithNobodyProfiledAfterTheListWasResetInReady() {
            // Section 8.7: changing --active-domains while the daemon runs resets the list first.
            Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(100000).enabled(DOM0, DOMU);
            s.ok(DOM0, XenoprofOp.RESET_ACTIVE_LIST, null);
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.SET_ACTIVE, DOM0));
            s.ok(DOM0, XenoprofOp.START, null);
            assertEquals(DomainType.IGNORED, s.core.domainType(DOM0));
            assertEquals(DomainType.IGNORED, s.core.domainType(DOMU));
        }

        @Test
        void disableVirqClearsItsListSlotSoStartCanNoLongerSucceed() {
            Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(100000).enabled(DOM0, DOMU);
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null);
            assertArrayEquals(new int[] {DOM0, -1}, s.core.activeList(), "Xen leaves a NULL slot");
            assertEquals(1, s.core.activated());
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.START, null));
        }

        @Test
        void disableVirqOfTheLastReadyDomainEmptiesTheList() {
            Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(100000).enabled(DOM0);
            s.ok(DOM0, XenoprofOp.DISABLE_VIRQ, null);
            assertEquals(0, s.core.activated());
            assertEquals(0, s.core.activeListSize(), "adomains = 0 once activated reaches 0");
        }

        @Test
        void disableVirqOfANeverReadyDomainWrapsActivatedAsXensUnsignedCounter() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null);
            assertEquals(-1, s.core.activated(), "0 - 1 as an unsigned int");
            assertEquals(2, s.core.activeListSize(), "activated is not 0, so adomains is kept");
        }

        @Test
        void disableVirqIsRefusedToAnActiveDomainWhileProfilingAndKeepsItActive() {
            Steps s = Steps.profiling();
            assertEquals(Errno.EPERM.ret(), s.call(DOMU, XenoprofOp.DISABLE_VIRQ, null));
            assertEquals(DomainType.ACTIVE, s.core.domainType(DOMU));
            assertEquals(2, s.core.mapBuffers(DOMU, DOMU).length, "pages stay shared");
        }

        @Test
        void disableVirqByAnUnlistedDomainIsEpermAndKeepsItsPagesShared() {
            Steps s = Steps.standard().initialized(DOM0);
            s.getBuffer(OTHER, 16);
            assertEquals(Errno.EPERM.ret(), s.call(OTHER, XenoprofOp.DISABLE_VIRQ, null));
            assertEquals(1, s.core.mapBuffers(OTHER, OTHER).length);
        }
    }

    @Nested
    class Buffers {
        @Test
        void getBufferReturnsOneBufferPerVcpuOfTheNativeSizeAtAStableAddress() {
            Steps s = Steps.standard();
            XenoprofGetBuffer gb = s.getBuffer(DOMU, 16);
            assertEquals(2, gb.nbuf);
            assertEquals(304, gb.bufsize);
            assertNotEquals(0, gb.bufGmaddr);
            assertEquals(0, gb.bufGmaddr % 4096, "page aligned");
            SharedBuffer[] bufs = s.core.mapBuffers(DOMU, DOMU);
            assertEquals(2, bufs.length);
            assertEquals(0, bufs[0].vcpuId());
            assertEquals(1, bufs[1].vcpuId());
            assertEquals(16, bufs[0].size());
        }

        @Test
        void maxSamplesIsClampedToTheThirtyTwoPageCap() {
            FakeMachine m = FakeMachine.standard().domain(7, 4).domain(8, 8).domain(9, 1);
            Steps s = new Steps(m);
            assertEquals(2045, slots(s, 7, 100000));
            assertEquals(1021, slots(s, 8, 100000));
            assertEquals(8189, slots(s, 9, 100000));
        }

        private int slots(Steps s, int domid, int request) {
            XenoprofGetBuffer gb = s.getBuffer(domid, request);
            assertEquals(64 + (s.core.mapBuffers(domid, domid)[0].size() - 1) * 16, gb.bufsize);
            return s.core.mapBuffers(domid, domid)[0].size();
        }

        @Test
        void getBufferOfADomainWithoutVcpusIsEinval() {
            Steps s = new Steps(FakeMachine.standard().domain(9, 0));
            assertEquals(Errno.EINVAL.ret(), s.call(9, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16)));
        }

        @Test
        void getBufferZeroesHeadAndTailOfEveryVcpuBuffer() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            SharedBuffer b = s.core.mapBuffers(DOMU, DOMU)[1];
            b.writeHead(5);
            b.writeTail(3);
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null);
            s.getBuffer(DOMU, 16);
            assertEquals(0, b.head());
            assertEquals(0, b.tail());
        }

        @Test
        void buffersAreKeptAcrossGetBufferCallsAtTheSameAddress() {
            Steps s = Steps.standard();
            s.init(DOM0);
            long address = s.getBuffer(DOMU, 16).bufGmaddr;
            s.ok(DOM0, XenoprofOp.SET_ACTIVE, DOMU);
            SharedBuffer first = s.core.mapBuffers(DOMU, DOMU)[0];
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null);
            XenoprofGetBuffer again = s.getBuffer(DOMU, 999);
            assertEquals(address, again.bufGmaddr);
            assertEquals(304, again.bufsize, "the first size is kept until the domain is destroyed");
            assertSame(first, s.core.mapBuffers(DOMU, DOMU)[0]);
        }

        @Test
        void quirkE_secondGetBufferIsEbusyButMakesTheDomainIgnoredFirst() {
            Steps s = Steps.profiling();
            assertEquals(DomainType.ACTIVE, s.core.domainType(DOMU));
            assertEquals(Errno.EBUSY.ret(), s.call(DOMU, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16)));
            assertEquals(DomainType.IGNORED, s.core.domainType(DOMU));
        }

        @Test
        void quirkE_aFailedShareKeepsPmuOwnership() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null); // releases the PMU
            assertFalse(s.core.xenoprofOwnsPmu());
            assertEquals(Errno.EBUSY.ret(), s.call(DOM0, XenoprofOp.GET_BUFFER, new XenoprofGetBuffer(16)));
            assertTrue(s.core.xenoprofOwnsPmu(), "acquired before the share check, never released");
        }

        @Test
        void getBufferIsEbusyWhileTheHvmVpmuOwnsThePmuBeforeLookingAtTheArgument() {
            Steps s = Steps.standard();
            s.machine.guestsHoldPmu = "the counter-virtualization policy lazy gives the guests the PMU";
            assertEquals(Errno.EBUSY.ret(), s.call(DOMU, XenoprofOp.GET_BUFFER, null));
            assertFalse(s.core.xenoprofOwnsPmu());
            assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(DOMU, DOMU));
        }

        @Test
        void getBufferAcquiresAndDisableVirqReleasesThePmu() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            assertTrue(s.core.xenoprofOwnsPmu());
            s.ok(DOMU, XenoprofOp.DISABLE_VIRQ, null);
            assertFalse(s.core.xenoprofOwnsPmu());
        }

        @Test
        void anHvmGuestGetsBuffersButNoUsableAddressAndCannotMapThem() {
            Steps s = new Steps(FakeMachine.standard().hvmDomain(6, 1));
            XenoprofGetBuffer gb = new XenoprofGetBuffer(16);
            gb.bufGmaddr = 0x1234;
            s.ok(6, XenoprofOp.GET_BUFFER, gb);
            assertEquals(0x1234, gb.bufGmaddr, "Xen leaves buf_gmaddr as the guest passed it");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(6, 6));
            assertTrue(e.getMessage().contains("autotranslated"), e.getMessage());
        }

        @Test
        void mapBuffersNeedsThePagesSharedWithTheMapperAndSaysWhichCallSharesThem() {
            Steps s = Steps.standard();
            IllegalStateException none = assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(DOMU, DOMU));
            assertTrue(none.getMessage().contains("get_buffer"), none.getMessage());
            s.getBuffer(DOMU, 16);
            IllegalStateException foreign = assertThrows(IllegalStateException.class,
                    () -> s.core.mapBuffers(DOM0, DOMU));
            assertTrue(foreign.getMessage().contains("set_passive"), foreign.getMessage());
            assertTrue(foreign.getMessage().contains("shared with domain 3 (by get_buffer)"), foreign.getMessage());
        }

        @Test
        void setPassiveSharesTheTargetsBuffersWithThePrimaryNotTheTarget() {
            Steps s = Steps.standard();
            s.init(DOM0);
            XenoprofPassive p = s.setPassive(OTHER, 2048);
            assertEquals(1, p.nbuf);
            assertEquals(64 + 2047 * 16, p.bufsize);
            assertNotEquals(0, p.bufGmaddr);
            assertEquals(DomainType.PASSIVE, s.core.domainType(OTHER));
            assertArrayEquals(new int[] {OTHER}, s.core.passiveList());
            assertEquals(2048, s.core.mapBuffers(DOM0, OTHER)[0].size());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(OTHER, OTHER));
            assertTrue(e.getMessage().contains("set_passive"), e.getMessage());
        }

        @Test
        void setPassiveOfADomainWhosePagesAreSharedIsEbusy() {
            Steps s = Steps.standard();
            s.getBuffer(DOMU, 16);
            s.init(DOM0);
            assertEquals(Errno.EBUSY.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(DOMU, 2048)));
            assertEquals(0, s.core.passiveList().length);
        }

        @Test
        void setPassiveReportsAnyAllocationFailureAsEnomemAndAnUnknownDomainAsEinval() {
            Steps s = new Steps(FakeMachine.standard().domain(9, 0));
            s.init(DOM0);
            assertEquals(Errno.ENOMEM.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(9, 2048)));
            assertEquals(Errno.EINVAL.ret(), s.call(DOM0, XenoprofOp.SET_PASSIVE, new XenoprofPassive(42, 2048)));
        }

        @Test
        void resetPassiveListMakesThemIgnoredAndUnsharesTheirPages() {
            Steps s = Steps.standard();
            s.init(DOM0);
            s.setPassive(OTHER, 2048);
            s.ok(DOM0, XenoprofOp.RESET_PASSIVE_LIST, null);
            assertEquals(DomainType.IGNORED, s.core.domainType(OTHER));
            assertEquals(0, s.core.passiveList().length);
            assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(DOM0, OTHER));
            s.setPassive(OTHER, 16); // shareable again, with the buffers of the first allocation
            assertEquals(2048, s.core.mapBuffers(DOM0, OTHER)[0].size());
        }

        @Test
        void releaseCountersAlsoResetsThePassiveList() {
            Steps s = Steps.standard().initialized(DOM0);
            s.setPassive(OTHER, 2048);
            s.reserved();
            s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
            assertEquals(0, s.core.passiveList().length);
            assertEquals(DomainType.IGNORED, s.core.domainType(OTHER));
        }

        @Test
        void enableVirqZeroesTheCallersIndicesAndThePrimarysAlsoThePassiveOnes() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.setPassive(OTHER, 2048);
            s.reserved().programmed(100000);
            SharedBuffer passive = s.core.mapBuffers(DOM0, OTHER)[0];
            SharedBuffer own = s.core.mapBuffers(DOMU, DOMU)[0];
            passive.writeHead(9);
            own.writeHead(4);
            own.writeTail(2);
            s.enabled(DOMU);
            assertEquals(0, own.head());
            assertEquals(0, own.tail());
            assertEquals(9, passive.head(), "only the primary's enable_virq resets passive buffers");
            s.enabled(DOM0);
            assertEquals(0, passive.head());
        }

        @Test
        void thePrimarysEnableVirqInstallsTheCallbackBeforeItsOwnListCheck() {
            Steps s = Steps.standard().initialized(DOMU).reserved().programmed(1000);
            s.getBuffer(DOM0, 16);
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.ENABLE_VIRQ, null), "dom0 is not listed");
            assertTrue(s.core.nmiCallbackInstalled(), "the NMI callback was installed anyway, as in Xen");
        }

        @Test
        void enableVirqByAListedDomainWithoutBufferIsEperm() {
            Steps s = Steps.standard();
            s.init(DOM0);
            s.ok(DOM0, XenoprofOp.SET_ACTIVE, DOMU);
            assertEquals(Errno.EPERM.ret(), s.call(DOMU, XenoprofOp.ENABLE_VIRQ, null));
            assertEquals(0, s.core.activated());
        }

        @Test
        void domainDestroyedFreesBuffersAndLeavesTheLists() {
            Steps s = Steps.standard().initialized(DOM0, DOMU);
            s.setPassive(OTHER, 2048);
            s.reserved().programmed(100000).enabled(DOM0, DOMU);
            s.core.bindVirq(DOMU, v -> { });
            s.machine.destroy(DOMU);
            s.core.domainDestroyed(DOMU);
            s.core.domainDestroyed(OTHER);
            assertArrayEquals(new int[] {DOM0}, s.core.activeList());
            assertEquals(1, s.core.activated());
            assertEquals(0, s.core.passiveList().length);
            assertEquals(DomainType.IGNORED, s.core.domainType(DOMU));
            assertThrows(IllegalStateException.class, () -> s.core.mapBuffers(DOMU, DOMU));
            s.ok(DOM0, XenoprofOp.START, null); // the remaining list is consistent
        }

        @Test
        void destroyingADomainCountsTheEntriesItsDaemonNeverRead() {
            Steps s = Steps.profiling();
            SharedBuffer[] b = s.core.mapBuffers(DOMU, DOMU);
            for (int i = 0; i < 3; i++) {
                s.machine.fakePmu(0).overflowNext(0);
                s.core.nmi(0, DOMU, 0, XenoprofCore.MODE_USER, 0x1000, new long[0], 0, OverflowRouter.SYSTEM_WIDE);
            }
            s.machine.fakePmu(0).overflowNext(0);
            s.core.nmi(0, DOMU, 1, XenoprofCore.MODE_USER, 0x1000, new long[0], 0, OverflowRouter.SYSTEM_WIDE);
            b[0].writeTail(1); // the daemon read one entry of vcpu 0
            s.machine.destroy(DOMU);
            s.core.domainDestroyed(DOMU);
            assertEquals(3, s.core.undrainedAtDestroy(), "two entries of vcpu 0 and one of vcpu 1");
            assertEquals(0, s.core.buffers(DOMU).length);
            assertTrue(s.core.diagnostics().log().stream().anyMatch(l -> l.contains("3 entries never drained")));
        }

        @Test
        void destroyingThePrimaryLeavesTheSessionWithoutPrimary() {
            Steps s = Steps.standard().initialized(DOM0);
            s.core.domainDestroyed(DOM0);
            assertEquals(-1, s.core.primary());
        }
    }

    @Nested
    class Counters {
        @Test
        void reserveStartStopAndReleaseRunOnEveryPcpu() {
            Steps s = Steps.profiling();
            s.ok(DOM0, XenoprofOp.STOP, null);
            s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
            for (int c = 0; c < 2; c++) {
                assertEquals(List.of("reserve", "setup", "start", "stop", "release"), s.machine.fakePmu(c).steps,
                        "pcpu " + c);
            }
            assertFalse(s.core.nmiCallbackInstalled(), "release_counters removes the NMI callback");
        }

        @Test
        void setupEventsProgramsEnabledCountersWithTheEventFromTheModelTable() {
            Steps s = Steps.standard().initialized(DOM0).reserved();
            XenoprofCounter c0 = Steps.counter(0, CLK_UNHALTED, 100000);
            c0.kernel = 0;
            c0.unitMask = 0;
            s.ok(DOM0, XenoprofOp.COUNTER, c0);
            s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(1, 0xc0, 50000));
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
            CounterConfig[] cc = s.machine.fakePmu(1).lastSetup;
            assertEquals(2, cc.length);
            assertEquals("CPU_CLK_UNHALTED", cc[0].event().name());
            assertEquals(100000, cc[0].count());
            assertFalse(cc[0].kernel());
            assertTrue(cc[0].user());
            assertEquals(1, cc[1].counter());
            assertEquals("INST_RETIRED", cc[1].event().name());
            assertArrayEquals(cc, s.core.programmedCounters());
        }

        @Test
        void theEventIsTheFirstWithThatCodeUsableOnTheCounter() {
            Steps s = Steps.standard().initialized(DOM0).reserved();
            s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(0, 0x12, 1000));
            s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(1, 0x12, 1000));
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
            CounterConfig[] cc = s.machine.fakePmu(0).lastSetup;
            assertEquals("MUL_ANY", cc[0].event().name(), "MUL cannot use counter 0");
            assertEquals("MUL", cc[1].event().name());
        }

        @Test
        void anEventCodeOutsideTheTableNeverCounts() {
            Steps s = Steps.standard().initialized(DOM0).reserved();
            s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(0, 0x55, 1000));
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
            CounterConfig c = s.machine.fakePmu(0).lastSetup[0];
            assertEquals("event 0x55", c.event().name());
            assertEquals(0x55, c.event().code());
            assertNull(c.event().signal());
        }

        @Test
        void disabledCountersAndCountersBeyondTheModelAreNotProgrammed() {
            Steps s = Steps.standard().initialized(DOM0).reserved();
            XenoprofCounter off = Steps.counter(0, CLK_UNHALTED, 1000);
            off.enabled = 0;
            s.ok(DOM0, XenoprofOp.COUNTER, off);
            s.ok(DOM0, XenoprofOp.COUNTER, Steps.counter(7, CLK_UNHALTED, 1000)); // Xen stores index 7
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
            assertEquals(0, s.machine.fakePmu(0).lastSetup.length);
        }

        @Test
        void counterIndexFromEightUpIsE2bigReadAsUnsigned() {
            Steps s = Steps.standard().initialized(DOM0).reserved();
            assertEquals(Errno.E2BIG.ret(), s.call(DOM0, XenoprofOp.COUNTER, Steps.counter(8, CLK_UNHALTED, 1000)));
            assertEquals(Errno.E2BIG.ret(), s.call(DOM0, XenoprofOp.COUNTER, Steps.counter(-1, CLK_UNHALTED, 1000)));
        }

        @Test
        void counterNeedsANonEmptyActiveList() {
            Steps s = Steps.standard();
            s.init(DOM0);
            s.reserved();
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.COUNTER, Steps.counter(0, CLK_UNHALTED, 1000)));
            assertEquals(Errno.EPERM.ret(), s.call(DOM0, XenoprofOp.IBS_COUNTER,
                    new org.hyperprof.api.xenoprof.XenoprofIbsCounter()));
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null); // setup_events has no such condition
        }

        @Test
        void counterConfigurationsOutliveTheSession() {
            Steps s = Steps.standard().initialized(DOM0, DOMU).reserved().programmed(4000);
            s.ok(DOM0, XenoprofOp.RELEASE_COUNTERS, null);
            s.reserved();
            s.ok(DOM0, XenoprofOp.SETUP_EVENTS, null);
            assertEquals(4000, s.machine.fakePmu(0).lastSetup[0].count());
        }

        @Test
        void getIbsCapsReturnsZeroWithoutIbs() {
            Steps s = Steps.standard();
            s.init(DOM0);
            assertEquals(0, s.call(DOM0, XenoprofOp.GET_IBS_CAPS, null));
        }

        @Test
        void setBacktraceStoresTheDepth() {
            Steps s = Steps.standard();
            s.init(DOM0);
            s.ok(DOM0, XenoprofOp.SET_BACKTRACE, 16L);
            assertEquals(16, s.core.backtraceDepth());
            s.ok(DOM0, XenoprofOp.SET_BACKTRACE, -1L);
            assertEquals(Integer.MAX_VALUE, s.core.backtraceDepth(), "unsigned long, saturated");
        }

        @Test
        void theSignalOfAKnownEventComesFromTheTable() {
            Steps s = Steps.standard().initialized(DOM0).reserved().programmed(1000);
            assertEquals(Signal.CYCLES, s.machine.fakePmu(0).lastSetup[0].event().signal());
        }
    }

    @Test
    void bindVirqRejectsAMissingHandlerAndAnUnknownDomain() {
        Steps s = Steps.standard();
        assertThrows(IllegalArgumentException.class, () -> s.core.bindVirq(DOMU, null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.core.bindVirq(42, v -> { }));
        assertTrue(e.getMessage().contains("domain 42"), e.getMessage());
    }

    private static String last(List<String> steps) {
        return steps.get(steps.size() - 1);
    }
}

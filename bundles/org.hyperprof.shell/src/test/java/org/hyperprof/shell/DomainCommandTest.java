package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.xenoprof.DomainType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** hp:domain: pausing, unpausing and destroying a domain mid-session, and its state. */
class DomainCommandTest {
    private final Fakes.Captured io = new Fakes.Captured();
    private final Fakes.FakeHostService hosts = new Fakes.FakeHostService();
    private final HostCommands commands = new HostCommands(hosts, io.console);
    private Fakes.FakeHost host;

    @BeforeEach
    void loadHost() throws Exception {
        hosts.load("default", null);
        host = hosts.current;
    }

    @Test
    void stateNamesTheDomainItsStateAndItsRoleInTheSession() {
        host.xenoprof.primary = 0;
        host.xenoprof.activeList = new int[] {0, 1};
        host.xenoprof.types.put(0, DomainType.ACTIVE);
        commands.domain("0");
        commands.domain("1", "state");
        assertEquals("dom0 (Domain-0): running, primary, active (ready)\n"
                + "dom1 (domU-rcv): running, active (no enable_virq yet)\n", io.out());
        assertEquals(List.of(), host.domainCalls);
    }

    @Test
    void pausePausesTheDomainAndSaysItsBuffersStay() {
        commands.domain("1", "pause");
        assertEquals(List.of("pause 1"), host.domainCalls);
        assertEquals("dom1 (domU-rcv) paused: its vCPUs are not scheduled until hp:domain 1 unpause; samples already"
                + " in its buffers stay there\ndom1 (domU-rcv) is now paused\n", io.out());
    }

    @Test
    void pausingAPausedDomainSaysSo() {
        host.states.put(1, DomainState.PAUSED);
        commands.domain("1", "pause");
        assertTrue(io.out().startsWith("dom1 (domU-rcv) was already paused: "), io.out());
    }

    @Test
    void unpauseLetsThePausedDomainRunAgain() {
        host.states.put(1, DomainState.PAUSED);
        commands.domain("1", "unpause");
        assertEquals(List.of("unpause 1"), host.domainCalls);
        assertEquals("dom1 (domU-rcv) unpaused: its vCPUs are scheduled again\ndom1 (domU-rcv) is now running\n",
                io.out());
    }

    @Test
    void destroyDestroysTheDomainAndSaysItIsPermanent() {
        host.xenoprof.passiveList = new int[] {1};
        commands.domain("1", "destroy");
        assertEquals(List.of("destroy 1"), host.domainCalls);
        assertEquals("dom1 (domU-rcv) destroyed; it was passive. It never runs again: Xenoprof freed its buffers and"
                + " dropped it from the active and passive lists. What its daemon drained is kept; what was still in"
                + " its buffers counts as undrained.\n"
                + "This is permanent: only loading the host again (hp:load) brings dom1 back.\n"
                + "dom1 (domU-rcv) is now destroyed\n", io.out());
    }

    @Test
    void aDestroyedDomainCannotBeUnpausedAndTheHostsReasonIsOneLine() {
        host.states.put(1, DomainState.DESTROYED);
        Fakes.fails(() -> commands.domain("1", "unpause"));
        assertEquals("", io.out());
        assertEquals("hp:domain: cannot unpause domain 1: it was destroyed\n", io.err());
    }

    @Test
    void anUnknownDomainNamesTheDomainsThatExist() {
        Fakes.fails(() -> commands.domain("7", "pause"));
        assertEquals(List.of(), host.domainCalls);
        assertEquals("hp:domain: no domain 7; the host has dom0, dom1\n", io.err());
    }

    @Test
    void aBadActionPrintsTheUsage() {
        Fakes.fails(() -> commands.domain("1", "kill"));
        assertEquals("hp:domain: unknown domain action 'kill'; actions are pause, unpause, destroy, state\n"
                + "usage: hp:domain <domid> [state|pause|unpause|destroy]\n"
                + "(hp:domain --help explains the arguments)\n", io.err());
    }

    @Test
    void withoutAHostSaysHowToLoadOne() {
        hosts.current = null;
        Fakes.fails(() -> commands.domain("1", "pause"));
        assertTrue(io.err().startsWith("hp:domain: no host is loaded: hp:load"), io.err());
    }

    @Test
    void hostListsAPausedOrDestroyedDomainWithItsState() {
        host.states.put(1, DomainState.PAUSED);
        commands.host();
        assertTrue(io.out().contains("  dom1   domU-rcv     pv  1 vCPU  paused\n"), io.out());
        assertTrue(io.out().contains("  dom0   Domain-0     pv  1 vCPU  hardware domain\n"), io.out());
    }

    @Test
    void theHostsRefusalToDestroyTheHardwareDomainIsOneLineAndNothingChanges() {
        Fakes.fails(() -> commands.domain("0", "destroy"));
        assertEquals(List.of(), host.domainCalls);
        assertEquals("", io.out());
        assertEquals("hp:domain: domain 0 is the hardware domain: Xen refuses to destroy it\n", io.err());
    }

    @Test
    void destroyingADestroyedDomainGetsTheHostsReason() {
        host.states.put(1, DomainState.DESTROYED);
        Fakes.fails(() -> commands.domain("1", "destroy"));
        assertEquals("hp:domain: cannot destroy domain 1: it was destroyed\n", io.err());
    }
}

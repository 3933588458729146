package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;

/** What hp:profile's multi-domain options, hp:domain, hp:guest and hp:export accept. */
class MultiDomainCommandLinesTest {
    private static String[] w(String... words) {
        return words;
    }

    private static String refusal(org.junit.jupiter.api.function.Executable parse) {
        return assertThrows(UsageException.class, parse).getMessage();
    }

    // --- hp:profile --passive, --passive-images, --callgraph ---

    @Test
    void profileWithoutMultiDomainOptionsAsksForNoPassiveDomainsAndNoCallTraces() throws UsageException {
        CommandLines.Profile p = CommandLines.profile(w());
        assertEquals(List.of(), p.passive());
        assertEquals(List.of(), p.passiveImages());
        assertEquals(0, p.callgraphDepth());
        assertEquals(new ProfileRequest(List.of(), 1_000_000, List.of()), p.request());
    }

    @Test
    void profileBuildsTheRequestWithActivePassiveImagesAndDepth() throws UsageException {
        CommandLines.Profile p = CommandLines.profile(w("--domains", "0,1", "--passive", "2,3", "--passive-images",
                "vmlinux-pv, vmlinux-hvm", "--callgraph", "6", "--ms", "200"));
        assertEquals(new ProfileRequest(List.of(), 200_000, List.of(0, 1), List.of(2, 3),
                List.of("vmlinux-pv", "vmlinux-hvm"), 6), p.request());
    }

    @Test
    void fewerPassiveImagesThanPassiveDomainsLeavesTheRestCoarse() throws UsageException {
        CommandLines.Profile p = CommandLines.profile(w("--passive=2,3", "--passive-images=vmlinux-pv"));
        assertEquals(List.of(2, 3), p.request().passiveDomains());
        assertEquals(List.of("vmlinux-pv"), p.request().passiveImages());
    }

    @Test
    void moreImagesThanPassiveDomainsIsRefusedWithTheCounts() {
        assertEquals("--passive-images names 2 images for 1 passive domain(s) (--passive 2); give at most one per"
                + " passive domain, in the same order",
                refusal(() -> CommandLines.profile(w("--passive", "2", "--passive-images", "a,b"))));
    }

    @Test
    void passiveImagesWithoutPassiveDomainsIsRefusedWithAnExample() {
        assertEquals("--passive-images names the kernels of passive domains, but no --passive domains are given;"
                + " e.g. --passive 2,3 --passive-images vmlinux-a,vmlinux-b",
                refusal(() -> CommandLines.profile(w("--passive-images", "vmlinux-a"))));
    }

    @Test
    void anEmptyPassiveImageEntryIsRefused() {
        assertEquals("--passive-images 'a,,b' has an empty entry; expected names separated by commas, e.g."
                + " vmlinux-guest-a,vmlinux-guest-b",
                refusal(() -> CommandLines.profile(w("--passive", "2,3,4", "--passive-images", "a,,b"))));
    }

    @Test
    void aDomainIsProfiledInOneModeAtATime() {
        assertEquals("dom1 is in both --domains and --passive; a domain is profiled in one mode at a time, so list it"
                + " in one of them", refusal(() -> CommandLines.profile(w("--domains", "0,1", "--passive", "1,2"))));
    }

    @Test
    void aPassiveDomainListedTwiceIsRefused() {
        assertEquals("--passive 2,2 lists dom2 twice; list each passive domain once (its buffers are shared with the"
                + " primary once)", refusal(() -> CommandLines.profile(w("--passive", "2,2"))));
    }

    @Test
    void passiveDomainsAreSixteenBitDomainIds() {
        assertEquals("a domain id in --passive must be from 0 to 65535, got 70000",
                refusal(() -> CommandLines.profile(w("--passive", "2,70000"))));
    }

    @Test
    void callgraphDepthIsZeroOrMore() throws UsageException {
        assertEquals(0, CommandLines.profile(w("--callgraph", "0")).callgraphDepth());
        assertEquals("--callgraph (the call-trace depth) must be from 0 to 2147483647, got -1",
                refusal(() -> CommandLines.profile(w("--callgraph", "-1"))));
        assertEquals("expected --callgraph (the call-trace depth) as a number, got 'deep'",
                refusal(() -> CommandLines.profile(w("--callgraph", "deep"))));
    }

    // --- hp:domain ---

    @Test
    void domainTakesAnIdAndAnActionInAnyCase() throws UsageException {
        assertEquals(new CommandLines.Domain(2, CommandLines.DomainAction.PAUSE), CommandLines.domain(w("2", "pause")));
        assertEquals(new CommandLines.Domain(2, CommandLines.DomainAction.UNPAUSE),
                CommandLines.domain(w("2", "UNPAUSE")));
        assertEquals(new CommandLines.Domain(3, CommandLines.DomainAction.DESTROY),
                CommandLines.domain(w("3", "destroy")));
        assertEquals(new CommandLines.Domain(1, CommandLines.DomainAction.STATE), CommandLines.domain(w("1", "state")));
    }

    @Test
    void domainWithoutAnActionShowsItsState() throws UsageException {
        assertEquals(new CommandLines.Domain(1, CommandLines.DomainAction.STATE), CommandLines.domain(w("1")));
    }

    @Test
    void domainRefusesUnknownActionsMissingIdsAndExtraWords() {
        assertEquals("unknown domain action 'kill'; actions are pause, unpause, destroy, state",
                refusal(() -> CommandLines.domain(w("1", "kill"))));
        assertEquals("expected a domain id and what to do with it, e.g. hp:domain 2 pause",
                refusal(() -> CommandLines.domain(w())));
        assertEquals("expected the domain id as a number, got 'dom1'", refusal(() -> CommandLines.domain(w("dom1"))));
        assertEquals("too many arguments: now (expected a domain id and one action)",
                refusal(() -> CommandLines.domain(w("1", "pause", "now"))));
    }

    // --- hp:guest ---

    @Test
    void guestTakesDomainVcpuIndexAndValue() throws UsageException {
        assertEquals(new CommandLines.Guest(1, 0, CommandLines.BufferIndex.HEAD, 99999),
                CommandLines.guest(w("1", "0", "head", "99999")));
        assertEquals(new CommandLines.Guest(1, 2, CommandLines.BufferIndex.TAIL, 5),
                CommandLines.guest(w("1", "2", "event_tail", "0x5")));
    }

    @Test
    void guestValueIsAnyU32SoTheTopBitPatternsCanBeWritten() throws UsageException {
        CommandLines.Guest g = CommandLines.guest(w("1", "0", "tail", "0xffffffff"));
        assertEquals(-1, g.value());
        assertEquals(0xFFFF_FFFFL, g.unsignedValue());
        assertEquals("the value written into event_head (a u32) must be from 0 to 4294967295, got 0x100000000",
                refusal(() -> CommandLines.guest(w("1", "0", "head", "0x100000000"))));
        assertEquals("the value written into event_tail (a u32) must be from 0 to 4294967295, got -1",
                refusal(() -> CommandLines.guest(w("1", "0", "tail", "-1"))));
    }

    @Test
    void guestRefusesAnIndexOtherThanHeadOrTail() {
        assertEquals("expected head or tail (the buffer index the guest overwrites), got 'size'",
                refusal(() -> CommandLines.guest(w("1", "0", "size", "3"))));
    }

    @Test
    void guestWithMissingWordsShowsAnExample() {
        assertEquals("expected the domain, its vCPU, head or tail, and the value the guest writes, e.g."
                + " hp:guest 1 0 head 99999", refusal(() -> CommandLines.guest(w("1", "0", "head"))));
    }

    // --- hp:export ---

    @Test
    void exportTakesWriterFormatFileAndDefaultsToTheLatestSessionOfAllDomains() throws UsageException {
        CommandLines.Export e = CommandLines.export(w("flamegraph", "svg", "/tmp/hp.svg"));
        assertEquals(new CommandLines.Export("flamegraph", "svg", "/tmp/hp.svg", ReportRequest.latest(), null), e);
    }

    @Test
    void exportTakesASessionAndADomain() throws UsageException {
        CommandLines.Export e = CommandLines.export(w("pprof", "pprof", "/tmp/hp.pb.gz", "--session", "4", "--domain",
                "2"));
        assertEquals(new ReportRequest(4, 2, Set.of()), e.request());
    }

    @Test
    void exportNeedsThreeWordsAndTakesTheRestAsTheWritersOptions() throws UsageException {
        assertEquals("expected the writer (report.name), the format and the file, e.g. hp:export flamegraph svg"
                + " /tmp/hp.svg", refusal(() -> CommandLines.export(w("flamegraph", "svg"))));
        // The writer refuses an option it does not take, naming the ones it does (FilteredStacksTest).
        assertEquals(Set.of("extra"),
                CommandLines.export(w("flamegraph", "svg", "/tmp/a.svg", "extra")).request().options());
    }
}

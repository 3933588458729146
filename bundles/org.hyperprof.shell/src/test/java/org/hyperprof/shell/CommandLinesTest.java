package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.xenoprof.XenoprofOp;
import org.hyperprof.command.kit.Table;
import org.hyperprof.command.kit.UsageException;
import org.junit.jupiter.api.Test;

class CommandLinesTest {
    private static String[] w(String... words) {
        return words;
    }

    @Test
    void commandsWithoutArgumentsRefuseAny() {
        assertEquals("too many arguments: x (expected no arguments)",
                assertThrows(UsageException.class, () -> CommandLines.none(HpCommand.HOST, w("x"))).getMessage());
    }

    @Test
    void commandsWithoutArgumentsAcceptNullFromGogo() throws UsageException {
        CommandLines.none(HpCommand.HOST, null);
    }

    @Test
    void eventsDefaultsToTheCurrentModelAndTakesOneCpuType() throws UsageException {
        assertNull(CommandLines.events(w()).cpuType());
        assertEquals("i386/p6", CommandLines.events(w("i386/p6")).cpuType());
        assertEquals(Table.Format.JSON, CommandLines.events(w("i386/p6", "--format", "json")).format());
        assertThrows(UsageException.class, () -> CommandLines.events(w("i386/p6", "i386/p4")));
    }

    @Test
    void loadDefaultsToTheEmbeddedDefaultScenario() throws UsageException {
        assertEquals(new CommandLines.Load(HostService.DEFAULT_SCENARIO, null), CommandLines.load(w()));
    }

    @Test
    void loadTakesAPathAndACpuOverride() throws UsageException {
        assertEquals(new CommandLines.Load("/tmp/two.scenario", "i386/p4"),
                CommandLines.load(w("/tmp/two.scenario", "--cpu", "i386/p4")));
    }

    @Test
    void runTurnsMillisecondsIntoMicroseconds() throws UsageException {
        assertEquals(500_000, CommandLines.runMicros(w("500")));
    }

    @Test
    void runWithoutMillisecondsShowsAnExample() {
        assertEquals("expected the simulated milliseconds to run, e.g. hp:run 500",
                assertThrows(UsageException.class, () -> CommandLines.runMicros(w())).getMessage());
    }

    @Test
    void runRefusesZeroNegativeAndWords() {
        assertEquals("the simulated milliseconds must be from 1 to 3600000 (one simulated hour; Ctrl-C stops a run"
                + " early), got 0",
                assertThrows(UsageException.class, () -> CommandLines.runMicros(w("0"))).getMessage());
        assertThrows(UsageException.class, () -> CommandLines.runMicros(w("-5")));
        assertEquals("expected the simulated milliseconds as a number, got 'long'",
                assertThrows(UsageException.class, () -> CommandLines.runMicros(w("long"))).getMessage());
    }

    @Test
    void aRunIsAtMostOneSimulatedHourAndNoLengthOverflows() throws UsageException {
        assertEquals(3_600_000_000L, CommandLines.runMicros(w("3600000")));
        assertEquals(3_600_000_000L, CommandLines.profile(w("--ms", "3600000")).micros());
        // Each of these was accepted, and ran for days or overflowed the simulator's cycle count.
        for (String ms : new String[] {"3600001", "2147483647", "3300000000000", "9223372036854775",
                "9223372036854775808", "99999999999999999999"}) {
            assertEquals("the simulated milliseconds must be from 1 to 3600000 (one simulated hour; Ctrl-C stops a"
                    + " run early), got " + ms,
                    assertThrows(UsageException.class, () -> CommandLines.runMicros(w(ms))).getMessage());
            assertEquals("--ms (simulated milliseconds) must be from 1 to 3600000 (one simulated hour; Ctrl-C stops a"
                    + " run early), got " + ms,
                    assertThrows(UsageException.class, () -> CommandLines.profile(w("--ms", ms))).getMessage());
        }
    }

    @Test
    void aNumberTooLongForSixtyFourBitsIsOutOfRangeNotNotANumber() {
        assertEquals("the domain id must be from 0 to 65535, got 123456789012345678901",
                assertThrows(UsageException.class, () -> CommandLines.domain(w("123456789012345678901"))).getMessage());
        assertEquals("expected the domain id as a number, got '12x'",
                assertThrows(UsageException.class, () -> CommandLines.domain(w("12x"))).getMessage());
    }

    @Test
    void opIsNamedInAnySpellingOrNumbered() throws UsageException {
        assertEquals(XenoprofOp.ENABLE_VIRQ, CommandLines.op("enable_virq").op());
        assertEquals(XenoprofOp.ENABLE_VIRQ, CommandLines.op("XENOPROF_enable_virq").op());
        assertEquals(XenoprofOp.ENABLE_VIRQ, CommandLines.op("8").op());
        assertEquals(8, CommandLines.op("enable-virq").number());
    }

    @Test
    void opNumberOutsideTheTableStillGoesToXenForItsEinval() throws UsageException {
        CommandLines.OpRef ref = CommandLines.op("42");
        assertEquals(42, ref.number());
        assertNull(ref.op());
        assertEquals("xenoprof_op 42", ref.text());
        assertEquals(-1, CommandLines.op("-1").number());
    }

    @Test
    void unknownOpNameListsEveryOpWithItsNumber() {
        String m = assertThrows(UsageException.class, () -> CommandLines.op("begin")).getMessage();
        assertTrue(m.startsWith("unknown op 'begin'; ops are init(0), reset_active_list(1)"), m);
        assertTrue(m.endsWith("ibs_counter(17)"), m);
    }

    @Test
    void opLineSplitsCallerOpAndTheOpsOwnWords() throws UsageException {
        CommandLines.Op op = CommandLines.op(w("0", "counter", "0", "CPU_CLK_UNHALTED:100000"));
        assertEquals(0, op.caller());
        assertEquals(XenoprofOp.COUNTER, op.op().op());
        assertEquals(List.of("0", "CPU_CLK_UNHALTED:100000"), op.args());
    }

    @Test
    void opNeedsCallerAndOp() {
        assertEquals("expected the calling domain and the op, e.g. hp:op 0 init",
                assertThrows(UsageException.class, () -> CommandLines.op(w("0"))).getMessage());
        assertEquals("expected the calling domain id as a number, got 'dom0'",
                assertThrows(UsageException.class, () -> CommandLines.op(w("dom0", "init"))).getMessage());
    }

    @Test
    void opcontrolPassesItsArgumentsThroughUntouched() throws UsageException {
        CommandLines.Opcontrol o = CommandLines.opcontrol(w("0", "--start-daemon", "--active-domains=0,1",
                "--event=CPU_CLK_UNHALTED:100000:0:1:1"));
        assertEquals(0, o.domid());
        assertEquals(List.of("--start-daemon", "--active-domains=0,1", "--event=CPU_CLK_UNHALTED:100000:0:1:1"), o.args());
    }

    @Test
    void opcontrolWithoutArgumentsShowsAnExampleForThatDomain() {
        assertEquals("expected opcontrol arguments after the domain id, e.g. hp:opcontrol 1 --status",
                assertThrows(UsageException.class, () -> CommandLines.opcontrol(w("1"))).getMessage());
        assertThrows(UsageException.class, () -> CommandLines.opcontrol(w()));
    }

    @Test
    void profileDefaultsToOneSecondTheModelsEventEveryDomainAndTheDefaultRenderer() throws UsageException {
        CommandLines.Profile p = CommandLines.profile(w());
        assertEquals(1_000_000, p.micros());
        assertEquals(List.of(), p.events());
        assertEquals(List.of(), p.domains());
        assertNull(p.scenario());
        assertNull(p.cpuType());
        assertNull(p.renderer());
        assertFalse(p.noReport());
    }

    @Test
    void profileTakesEveryOption() throws UsageException {
        CommandLines.Profile p = CommandLines.profile(w("--ms", "300", "--event", "CPU_CLK_UNHALTED:100000:0:1:1",
                "--event=L2_LD:5000:0x0f", "--domains", "0,1", "--scenario", "two-domus", "--cpu", "i386/p6",
                "--report", "opreport"));
        assertEquals(300_000, p.micros());
        assertEquals(List.of("CPU_CLK_UNHALTED:100000:0:1:1", "L2_LD:5000:0x0f"), p.events());
        assertEquals(List.of(0, 1), p.domains());
        assertEquals("two-domus", p.scenario());
        assertEquals("i386/p6", p.cpuType());
        assertEquals("opreport", p.renderer());
    }

    @Test
    void profileChecksEventSyntaxBeforeAnythingRuns() {
        String m = assertThrows(UsageException.class, () -> CommandLines.profile(w("--event", "CPU_CLK_UNHALTED")))
                .getMessage();
        assertTrue(m.startsWith("--event: event specification 'CPU_CLK_UNHALTED' has 1 fields"), m);
    }

    @Test
    void profileRefusesReportAndNoReportTogether() {
        assertEquals("--report opreport and --no-report contradict each other; give one",
                assertThrows(UsageException.class, () -> CommandLines.profile(w("--report", "opreport", "--no-report")))
                        .getMessage());
    }

    @Test
    void profileRefusesStrayWordsAndBadDomains() throws UsageException {
        assertEquals(java.util.Set.of("500"), CommandLines.profile(w("500")).reportOptions(),
                "words after the options are the report's options; the renderer judges them before the run");
        assertThrows(UsageException.class, () -> CommandLines.profile(w("top=5", "--no-report")));
        assertThrows(UsageException.class, () -> CommandLines.profile(w("--domains", "0,x")));
        assertThrows(UsageException.class, () -> CommandLines.profile(w("--ms", "0")));
    }

    @Test
    void reportFormatIsTheRenderersFormatWord() throws UsageException {
        assertEquals(java.util.Set.of("symbols", "format=json"),
                CommandLines.report(w("--format", "json", "symbols")).request().options());
        assertThrows(UsageException.class, () -> CommandLines.report(w("--format", "xml")));
    }

    @Test
    void reportDefaultsToTheLatestSessionOfAllDomains() throws UsageException {
        CommandLines.Report r = CommandLines.report(w());
        assertEquals(ReportRequest.latest(), r.request());
        assertNull(r.renderer());
    }

    @Test
    void reportPassesBareWordsThroughAsRendererOptions() throws UsageException {
        CommandLines.Report r = CommandLines.report(w("--session", "3", "--domain", "1", "--renderer", "opreport",
                "symbols", "top=10", "notruth"));
        assertEquals(new ReportRequest(3, 1, Set.of("symbols", "top=10", "notruth")), r.request());
        assertEquals("opreport", r.renderer());
    }

    @Test
    void reportSortAsksForPerfsKeysOfASessionNoRendererPrints() throws UsageException {
        CommandLines.Report r = CommandLines.report(w("--sort", "comm,dso,sym", "--session", "run1", "top=5"));
        assertEquals("comm,dso,sym", r.sort());
        assertEquals(Set.of("top=5"), r.request().options());
        assertEquals("run1", r.sessionName());
        assertNull(r.renderer());
        assertNull(CommandLines.report(w()).sort());
        UsageException e = assertThrows(UsageException.class, () -> CommandLines.report(w("--sort", "comm",
                "--renderer", "opreport")));
        assertTrue(e.getMessage().contains("--sort comm prints perf report's flat profile, not a renderer's"),
                e.getMessage());
    }

    @Test
    void aSessionIsGivenByItsIdOrByItsName() throws UsageException {
        assertEquals("baseline", CommandLines.report(w("--session", "baseline")).sessionName());
        assertEquals(ReportRequest.LATEST, CommandLines.report(w("--session", "baseline")).request().sessionId());
        assertNull(CommandLines.report(w("--session", "3")).sessionName());
        assertEquals("after", CommandLines.export(w("pprof", "pprof", "/tmp/a.pb.gz", "--session", "after"))
                .sessionName());
    }

    @Test
    void helpKnowsCommandsWithOrWithoutScope() throws UsageException {
        assertNull(CommandLines.help(w()));
        assertEquals(HpCommand.OP, CommandLines.help(w("op")));
        assertEquals(HpCommand.PROFILE, CommandLines.help(w("hp:profile")));
    }

    @Test
    void helpForAnUnknownCommandPointsToFelixHelp() {
        String m = assertThrows(UsageException.class, () -> CommandLines.help(w("lb"))).getMessage();
        assertTrue(m.startsWith("'lb' is not an hp command; hp commands are models, events,"), m);
        assertTrue(m.endsWith("(for other commands: felix:help <command>)"), m);
    }

    @org.junit.jupiter.api.Test
    void loadAndProfileTakeRepeatableHostAndPmuOptionsAsKeyValuePairs() throws Exception {
        CommandLines.Load load = CommandLines.load(new String[] { "ppc970-blade", "--host-option",
                "ppc.postponed=owner", "--pmu-option", "mmcra.hvpr=xnu", "--pmu-option=msr.pmm=1" });
        org.junit.jupiter.api.Assertions.assertEquals(java.util.Map.of("ppc.postponed", "owner"), load.hostOptions());
        org.junit.jupiter.api.Assertions.assertEquals(java.util.Map.of("mmcra.hvpr", "xnu", "msr.pmm", "1"),
                load.pmuOptions());
        CommandLines.Profile p = CommandLines.profile(new String[] { "--host-option", "ppc.postponed=poll" });
        org.junit.jupiter.api.Assertions.assertEquals(java.util.Map.of("ppc.postponed", "poll"), p.hostOptions());
        UsageException bad = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> CommandLines.load(new String[] { "--host-option", "ppc.postponed" }));
        org.junit.jupiter.api.Assertions.assertTrue(bad.getMessage().contains("key=value"), bad.getMessage());
        UsageException twice = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> CommandLines.load(new String[] { "--pmu-option", "a=1", "--pmu-option", "a=2" }));
        org.junit.jupiter.api.Assertions.assertTrue(twice.getMessage().contains("given twice"), twice.getMessage());
    }
}

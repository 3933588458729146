package org.hyperprof.report.opreport;

import static org.hyperprof.report.opreport.Reports.all;
import static org.hyperprof.report.opreport.Reports.row;
import static org.hyperprof.report.opreport.Reports.section;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.pmu.CpuMode;
import org.junit.jupiter.api.Test;

/** Passive domains as OProfile's Xen patch showed them: domain&lt;N&gt;-xen|kernel|modules|apps. */
class PassiveDomainTest {

    private final PassiveSession passive = new PassiveSession();
    private final String report;

    PassiveDomainTest() throws Exception {
        report = all(passive.completed(), "notruth");
    }

    @Test
    void aPassiveDomainsPseudoImagesAreRowsUnderThatDomainWithoutSymbols() throws Exception {
        String pv = section(report, "domU-pv (domain 1, passive)");
        assertEquals(List.of("20", "50.0000", "domain1-kernel"), row(pv, "domain1-kernel"));
        assertEquals(List.of("12", "30.0000", "domain1-apps", "(no symbols)"), row(pv, "domain1-apps", "(no symbols)"));
        assertEquals(List.of("5", "12.5000", "domain1-xen"), row(pv, "domain1-xen"));
        assertEquals(List.of("3", "7.5000", "domain1-modules"), row(pv, "domain1-modules"));
        assertFalse(section(report, "Domain-0 (domain 0").contains("domain1-"), "not under the primary");
    }

    @Test
    void theMergedReportNamesThePassiveDomainOfEachPseudoImage() {
        String merged = section(report, "All domains, merged");
        assertEquals(List.of("20", "33.3333", "domU-pv", "domain1-kernel", "(no symbols)"),
                row(merged, "domU-pv", "domain1-kernel", "(no symbols)"));
        assertEquals(List.of("4", "6.6667", "domU-hvm", "domain2-apps"), row(merged, "domU-hvm", "domain2-apps"));
    }

    @Test
    void aPassiveDomainsSectionExplainsThePseudoImagesAndWhatCanNeverBeSymbolised() {
        String pv = section(report, "domU-pv (domain 1, passive)");
        assertTrue(pv.contains("* passive domain: the primary's daemon drained its samples and, as OProfile's Xen"
                + " patch did, groups what it cannot resolve under domain1-xen, domain1-kernel, domain1-modules and"
                + " domain1-apps (with samples here: domain1-xen, domain1-kernel, domain1-modules, domain1-apps).\n"),
                pv);
        assertTrue(pv.contains("* a passive domain's modules and user programs can never be symbolised: the primary"
                + " cannot see into its processes, so they stay domain1-modules and domain1-apps (no symbols).\n"), pv);
    }

    @Test
    void anUnresolvedPassiveKernelPointsToPassiveImages() {
        assertTrue(section(report, "domU-pv (domain 1, passive)").contains("* its kernel was not resolved:"
                + " domain1-kernel has no symbols; give the domain's kernel image with --passive-images to resolve it."),
                report);
    }

    @Test
    void aPassiveKernelGivenWithPassiveImagesIsResolvedAndSaysSo() {
        String hvm = section(report, "domU-hvm (domain 2, passive)");
        assertEquals(List.of("6", "60.0000", "vmlinux-hvm", "tcp_v4_rcv"), row(hvm, "vmlinux-hvm", "tcp_v4_rcv"));
        assertTrue(hvm.contains("* its kernel was resolved with the image given by --passive-images: vmlinux-hvm."),
                hvm);
        assertTrue(hvm.contains("(with samples here: domain2-apps)"), hvm);
        assertFalse(hvm.contains("kernel was not resolved"), hvm);
    }

    @Test
    void anActiveDomainGetsNoPassiveNote() {
        assertFalse(section(report, "Domain-0 (domain 0, active)").contains("passive domain"), report);
    }

    @Test
    void pseudoImagesMarkADomainPassiveEvenBeforeItsRoleIsKnown() throws Exception {
        OpreportConsumer running = new OpreportConsumer();
        running.sessionStarted(passive.info);
        running.samples(new Batches(60).add(2, PassiveSession.PV, CpuMode.USER, 0, passive.pvApps, -1).build());
        String pv = section(all(running), "domU-pv (domain 1)");
        assertTrue(pv.contains("* passive domain: "), pv);
    }

    @Test
    void eachBufferAndDomainLineOfTheAccountingNamesItsRole() {
        String accounting = section(report, "Accounting");
        assertTrue(accounting.contains("domU-pv (domain 1, passive): samples taken 40 = delivered 40"), accounting);
        assertTrue(accounting.contains("  vcpu 0 (passive): samples taken 40"), accounting);
        assertTrue(accounting.contains("Domain-0 (domain 0, active): samples taken 10"), accounting);
    }
}

package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;

/**
 * The report filters in the flame graph: a sample is drawn when its own (sampled) frame passes,
 * with all its callers whatever their names; vcpu= keeps those vCPUs' stacks.
 */
class FilteredStacksTest {

    private final FlameGraphConsumer network = new NetworkStacks(1).completed();

    private String folded(String... options) throws Exception {
        return Reports.folded(network, ReportRequest.ALL_DOMAINS, options);
    }

    @Test
    void aSymbolFilterDrawsTheSamplesOfTheSymbolsItMatchesWithTheirCallers() throws Exception {
        assertEquals("""
                Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k] 25
                """, folded("symbol=^e1000_intr$"));
    }

    @Test
    void anImageFilterMatchesTheSampledFramesImage() throws Exception {
        assertEquals("""
                Domain-0;[vmlinux-xen0]_[k] 10
                Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k];netif_rx_[k] 15
                """, folded("image=^vmlinux-xen0$"));
    }

    @Test
    void excludedSymbolsAreNotDrawn() throws Exception {
        String text = folded("exclude=find_domain|main|recv|rcv");
        assertEquals("""
                Domain-0;[vmlinux-xen0]_[k] 10
                Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k] 25
                Domain-0;do_IRQ_[k];handle_irq_event_[k];e1000_intr_[k];netif_rx_[k] 15
                Domain-0;do_grant_table_op_[x];gnttab_copy_[x] 20
                """, text);
    }

    @Test
    void aVcpuFilterKeepsThoseVcpusStacks() throws Exception {
        assertEquals(NetworkStacks.FOLDED, folded("vcpu=0"));
        ReportException e = assertThrows(ReportException.class, () -> folded("vcpu=3"));
        assertEquals("the filter vcpu=3 leaves no sample of counter 0 to draw; loosen it", e.getMessage());
    }

    @Test
    void aBadRegularExpressionNamesTheOption() {
        ReportException e = assertThrows(ReportException.class, () -> folded("symbol=e1000_(intr"));
        assertTrue(e.getMessage().startsWith("option 'symbol=e1000_(intr': 'e1000_(intr' is not a regular"
                + " expression (Unclosed group"), e.getMessage());
    }
}

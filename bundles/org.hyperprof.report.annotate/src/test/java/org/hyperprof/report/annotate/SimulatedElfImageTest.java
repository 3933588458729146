package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/**
 * The simulated host's real-elf-userland scenario: its guest's user images are this machine's
 * libjvm.so and C library, so a function of them is annotated on the file's own instructions, every
 * sample of it counted on one; its kernels are symbol lists, which have no code to show.
 */
class SimulatedElfImageTest {

    /** The guest's JVM_ArrayCopy and the dom0 kernel's net_tx_action, annotated after a 200 ms profile. */
    @Test
    void aFunctionOfTheJdksLibjvmIsAnnotatedAndAKernelSymbolListIsRefused() throws Exception {
        try (RealElfProfile profile = RealElfProfile.run(200_000)) {
            AnnotateConsumer annotate = profile.annotate;
            SessionSummary summary = profile.summary;
            assertTrue(summary.completed(), summary.endReason());
            String json = render(annotate, summary.sessionId(), "JVM_ArrayCopy");
            assertTrue(json.contains("\"image\":\"" + Path.of(RealElfProfile.LIBJVM).normalize() + "\""), json);
            assertTrue(json.contains("\"outside\":0,"), json);
            long samples = Long.parseLong(json.replaceAll("(?s).*?\"samples\":(\\d+),.*", "$1"));
            assertTrue(samples > 10, "the guest's runtime region sampled it: " + json);
            long onInstructions = 0;
            for (String n : json.split("\"samples\":")) {
                if (n.matches("(?s)\\d+,\"instruction\".*")) {
                    onInstructions += Long.parseLong(n.substring(0, n.indexOf(',')));
                }
            }
            assertEquals(samples, onInstructions, "every sample on an instruction of the function");
            ReportException kernel = org.junit.jupiter.api.Assertions.assertThrows(ReportException.class,
                    () -> render(annotate, summary.sessionId(), "net_tx_action"));
            assertTrue(kernel.getMessage().startsWith("cannot annotate net_tx_action: its image"
                    + " vmlinux-2.6.32.59-0.7-xen has no code to disassemble"), kernel.getMessage());
        }
    }

    private static String render(AnnotateConsumer annotate, long session, String symbol) throws Exception {
        StringBuilder out = new StringBuilder();
        annotate.render(new ReportRequest(session, ReportRequest.ALL_DOMAINS, Set.of("symbol=" + symbol,
                "format=json")), out);
        return out.toString();
    }
}

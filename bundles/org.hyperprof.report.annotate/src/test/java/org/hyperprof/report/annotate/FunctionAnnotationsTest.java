package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;

/** The annotation as a service gives hp:annotate's answer, line for line, and its refusals. */
class FunctionAnnotationsTest {

    @Test
    void withNoSessionItSaysWhatToDoFirst() {
        ReportException e = assertThrows(ReportException.class, () -> new FunctionAnnotationsComponent(
                new AnnotateConsumer()).annotate(ReportRequest.LATEST, "main", null, ReportRequest.ALL_DOMAINS,
                        false));
        assertTrue(e.getMessage().startsWith("annotate has no session yet; run a profile first"), e.getMessage());
        assertThrows(ReportException.class, () -> new FunctionAnnotationsComponent(new AnnotateConsumer())
                .annotate(ReportRequest.LATEST, " ", null, ReportRequest.ALL_DOMAINS, false));
    }

    @Test
    void aFunctionOfTheJdksLibjvmIsTheCommandsAnnotation() throws Exception {
        try (RealElfProfile profile = RealElfProfile.run(100_000)) {
            AnnotateConsumer annotate = profile.annotate;
            SessionSummary summary = profile.summary;
            AnnotatedFunction f = new FunctionAnnotationsComponent(annotate).annotate(summary.sessionId(),
                    "JVM_ArrayCopy", null, ReportRequest.ALL_DOMAINS, false);
            StringBuilder json = new StringBuilder();
            annotate.render(new ReportRequest(summary.sessionId(), ReportRequest.ALL_DOMAINS,
                    Set.of("symbol=JVM_ArrayCopy", "format=json")), json);
            assertEquals(AnnotationText.json(annotate.annotation(new ReportRequest(summary.sessionId(),
                    ReportRequest.ALL_DOMAINS, Set.of()), "JVM_ArrayCopy", null, false)), json.toString());
            assertTrue(json.toString().contains("\"samples\":" + f.samples() + ",\"sessionSamples\":"
                    + f.sessionSamples() + ",\"outside\":" + f.outside() + ","), json.toString());
            assertEquals(f.samples(), f.lines().stream().mapToLong(AnnotatedFunction.Line::samples).sum());
            assertTrue(f.lines().stream().allMatch(AnnotatedFunction.Line::isInstruction));
            assertTrue(json.toString().contains("\"address\":\"0x" + Long.toHexString(f.lines().get(0).address())
                    + "\""), json.toString());
        }
    }
}

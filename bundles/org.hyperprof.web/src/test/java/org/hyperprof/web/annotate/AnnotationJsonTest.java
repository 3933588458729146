package org.hyperprof.web.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.api.report.ReportRequest;
import org.junit.jupiter.api.Test;

class AnnotationJsonTest {
    @Test
    void instructionsCarryTheirShareOfTheFunctionAndSourceLinesTheirText() {
        AnnotatedFunction f = new AnnotatedFunction(7, "CPU_CLK_UNHALTED", "main", "/usr/bin/hot", 0x1130, 0x1150, 4,
                100, 1, List.of(new AnnotatedFunction.Line(-1, "hot.c:3", 0),
                        new AnnotatedFunction.Line(0x1130, "push   %rbp", 1),
                        new AnnotatedFunction.Line(0x1131, "mov    %rsp,%rbp", 3)), List.of("1 sample outside"));
        assertEquals("{\"session\":7,\"event\":\"CPU_CLK_UNHALTED\",\"symbol\":\"main\",\"image\":\"/usr/bin/hot\","
                + "\"start\":\"0x1130\",\"end\":\"0x1150\",\"samples\":4,\"sessionSamples\":100,\"outside\":1,"
                + "\"linesLeftOut\":0,\"lines\":[{\"source\":\"hot.c:3\"},{\"address\":\"0x1130\",\"samples\":1,"
                + "\"share\":0.25,\"instruction\":\"push   %rbp\"},{\"address\":\"0x1131\",\"samples\":3,"
                + "\"share\":0.75,\"instruction\":\"mov    %rsp,%rbp\"}],\"notes\":[\"1 sample outside\"]}",
                AnnotationJson.of(f));
    }

    @Test
    void theParametersAreCheckedAndTheLatestSessionAndAllDomainsAreTheDefaults() {
        assertEquals(new AnnotateParameters(ReportRequest.LATEST, "main", null, ReportRequest.ALL_DOMAINS, false),
                AnnotateParameters.of(Map.of("symbol", "main")::get));
        assertEquals(new AnnotateParameters(12, "JVM_ArrayCopy", "libjvm", 1, true), AnnotateParameters.of(Map.of(
                "id", "12", "symbol", "JVM_ArrayCopy", "image", "libjvm", "domain", "1", "source", "1")::get));
        assertEquals("parameter symbol: the function to annotate, as the session's report names it"
                + " (/annotate?id=ID&symbol=main)", assertThrows(IllegalArgumentException.class,
                        () -> AnnotateParameters.of(Map.of("id", "3")::get)).getMessage());
        assertEquals("parameter id: a whole number from 0 to 9223372036854775807, not '-2'",
                assertThrows(IllegalArgumentException.class, () -> AnnotateParameters.of(Map.of("id", "-2",
                        "symbol", "f")::get)).getMessage());
        assertEquals("parameter source: 1 or 0, not 'yes'", assertThrows(IllegalArgumentException.class,
                () -> AnnotateParameters.of(Map.of("symbol", "f", "source", "yes")::get)).getMessage());
    }
}

package org.hyperprof.web.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.report.AnnotatedFunction;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.web.http.BadParameter;
import org.hyperprof.web.http.Json;
import org.hyperprof.web.http.Params;
import org.junit.jupiter.api.Test;

class AnnotationJsonTest {
    @Test
    void instructionsCarryTheirShareOfTheFunctionAndSourceLinesTheirText() {
        AnnotatedFunction f = new AnnotatedFunction(7, "CPU_CLK_UNHALTED", "main", "/usr/bin/hot", 0x1130, 0x1150, 4,
                100, 1, List.of(new AnnotatedFunction.Line(-1, "hot.c:3", 0),
                        new AnnotatedFunction.Line(0x1130, "push   %rbp", 1),
                        new AnnotatedFunction.Line(0x1131, "mov    %rsp,%rbp", 3)), List.of("1 sample outside"));
        assertEquals("{\"session\":\"7\",\"event\":\"CPU_CLK_UNHALTED\",\"symbol\":\"main\",\"image\":\"/usr/bin/hot\","
                + "\"start\":\"0x1130\",\"end\":\"0x1150\",\"samples\":4,\"sessionSamples\":100,\"outside\":1,"
                + "\"linesLeftOut\":0,\"lines\":[{\"source\":\"hot.c:3\"},{\"address\":\"0x1130\",\"samples\":1,"
                + "\"share\":0.25,\"instruction\":\"push   %rbp\"},{\"address\":\"0x1131\",\"samples\":3,"
                + "\"share\":0.75,\"instruction\":\"mov    %rsp,%rbp\"}],\"notes\":[\"1 sample outside\"]}",
                json(f));
    }

    private static String json(AnnotatedFunction f) {
        Json w = new Json();
        AnnotationJson.write(w, f);
        return w.toString();
    }

    @Test
    void theParametersAreCheckedAndTheLatestSessionAndAllDomainsAreTheDefaults() throws Exception {
        assertEquals(new AnnotateParameters(ReportRequest.LATEST, "main", null, ReportRequest.ALL_DOMAINS, false),
                AnnotateParameters.of(Params.parse("symbol=main")));
        assertEquals(new AnnotateParameters(12, "JVM_ArrayCopy", "libjvm", 1, true), AnnotateParameters.of(
                Params.parse("id=12&symbol=JVM_ArrayCopy&image=libjvm&domain=1&source=1")));
        assertEquals("parameter 'symbol' is missing: it takes the function to annotate, as the session's report"
                + " names it (/annotate?id=ID&symbol=main)", assertThrows(BadParameter.class,
                        () -> AnnotateParameters.of(Params.parse("id=3"))).getMessage());
        assertTrue(assertThrows(BadParameter.class, () -> AnnotateParameters.of(Params.parse("id=-2&symbol=f")))
                .getMessage().startsWith("parameter 'id'"));
        assertTrue(assertThrows(BadParameter.class, () -> AnnotateParameters.of(Params.parse("symbol=f&image=(")))
                .getMessage().startsWith("parameter 'image'"));
    }
}

package org.hyperprof.web.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.api.study.StudyReport.Figure;
import org.hyperprof.web.http.Json;
import org.junit.jupiter.api.Test;

class StudyJsonTest {
    private static String json(Optional<StudyReport> last) {
        Json w = new Json();
        StudyJson.write(w, last);
        return w.toString();
    }

    @Test
    void beforeAnyStudyThePageSaysHowToRunOne() {
        String json = json(Optional.empty());
        assertTrue(json.startsWith("{\"present\":false,\"hint\":\"no study has run in this Hyperprof yet"), json);
    }

    @Test
    void everyFigureCarriesItsIntervalAndAFigureOfNoValuesIsNull() {
        Figure none = new Figure(Double.NaN, Double.NaN, 0);
        Figure one = new Figure(12.5, Double.NaN, 1);
        StudyReport r = new StudyReport("consolidation", 42L, 3, 20, "<svg/>", List.of(new StudyReport.Variant("lazy",
                3, List.of("seed 2: the host stopped"), new Figure(35.25, 0.5, 3), one, none, new Figure(0, 0, 3),
                List.of(new StudyReport.Guest("web1", "own", new Figure(900, 12, 3), new Figure(10.72, 1.25, 3),
                        one, none, none, true, false)))));
        assertEquals("{\"present\":true,\"scenario\":\"consolidation\",\"seed\":42,\"seeds\":3,\"ms\":20,"
                + "\"variants\":[{\"label\":\"lazy\",\"ran\":3,\"failures\":[\"seed 2: the host stopped\"],"
                + "\"hypervisorPercent\":{\"mean\":35.25,\"halfWidth\":0.5,\"n\":3},"
                + "\"policyPercent\":{\"mean\":12.5,\"halfWidth\":null,\"n\":1},"
                + "\"accessesPerSwitch\":{\"mean\":null,\"halfWidth\":null,\"n\":0},"
                + "\"lost\":{\"mean\":0.0,\"halfWidth\":0.0,\"n\":3},"
                + "\"guests\":[{\"name\":\"web1\",\"sources\":\"own\",\"samples\":{\"mean\":900.0,\"halfWidth\":12.0,\"n\":3},"
                + "\"errorA\":{\"mean\":10.72,\"halfWidth\":1.25,\"n\":3},\"maxA\":{\"mean\":12.5,\"halfWidth\":null,"
                + "\"n\":1},\"errorB\":{\"mean\":null,\"halfWidth\":null,\"n\":0},\"maxB\":{\"mean\":null,"
                + "\"halfWidth\":null,\"n\":0},\"differsA\":true,\"differsB\":false}]}]}", json(Optional.of(r)));
    }
}

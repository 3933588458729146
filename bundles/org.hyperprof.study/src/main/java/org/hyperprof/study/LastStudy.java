package org.hyperprof.study;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.api.study.StudyResults;
import org.osgi.service.component.annotations.Component;

/**
 * The last study {@code hp:study} finished, kept for other readers ({@link StudyResults}: the web view's study
 * page). In memory only, for the framework's life: the study's files are what lasts.
 */
@Component(service = {StudyResults.class, LastStudy.class})
public final class LastStudy implements StudyResults {
    private final AtomicReference<StudyReport> last = new AtomicReference<>();

    @Override
    public Optional<StudyReport> last() {
        return Optional.ofNullable(last.get());
    }

    void keep(StudyReport report) {
        last.set(report);
    }

    /** The study as the API gives it: the summary's figures, its comparisons' marks, and the chart. */
    static StudyReport report(StudySummary s, String chartSvg) {
        return new StudyReport(s.scenario, s.seed, s.seeds, s.ms, chartSvg, s.rows.stream().map(v ->
                new StudyReport.Variant(v.variant().label(), v.ok(), v.failures(), figure(v.hyp()),
                        figure(v.policy()), figure(v.accesses()), figure(v.lost()), v.guests().stream().map(g ->
                                new StudyReport.Guest(g.name(), g.sources(), figure(g.samples()), figure(g.errA()),
                                        figure(g.maxA()), figure(g.errB()), figure(g.maxB()),
                                        differs(s, v.variant().label(), g.name(), "A"),
                                        differs(s, v.variant().label(), g.name(), "B"))).toList())).toList());
    }

    private static StudyReport.Figure figure(StudySummary.Figure f) {
        return new StudyReport.Figure(f.mean(), f.halfWidth(), f.n());
    }

    private static boolean differs(StudySummary s, String variant, String guest, String error) {
        StudySummary.Comparison c = s.comparison(variant, guest, error);
        return c != null && c.significant();
    }
}

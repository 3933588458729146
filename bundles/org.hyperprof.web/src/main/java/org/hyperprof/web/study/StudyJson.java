package org.hyperprof.web.study;

import java.util.Optional;

import org.hyperprof.api.study.StudyReport;
import org.hyperprof.web.http.Json;

/**
 * The study page's JSON: every variant's host-wide figures and every guest's errors, each figure its mean, the
 * half-width of its 95 % interval and the seeds it is over ({@code null} where it has none), and the marks.
 * The chart is served beside it as the SVG {@code hp:study} writes.
 */
final class StudyJson {
    private StudyJson() {
    }

    static void write(Json w, Optional<StudyReport> last) {
        w.beginObject();
        if (last.isEmpty()) {
            w.member("present", false).member("hint", "no study has run in this Hyperprof yet: run one"
                    + " (hp:study --ms 100, or launch/hyperprof --study) and reload").endObject();
            return;
        }
        StudyReport r = last.get();
        w.member("present", true).member("scenario", r.scenario());
        if (r.seed() == null) {
            w.name("seed").value((String) null);
        } else {
            w.member("seed", r.seed());
        }
        w.member("seeds", r.seeds()).member("ms", r.ms()).name("variants").beginArray();
        for (StudyReport.Variant v : r.variants()) {
            w.beginObject().member("label", v.label()).member("ran", v.ran()).name("failures").beginArray();
            v.failures().forEach(w::value);
            w.endArray();
            figure(w, "hypervisorPercent", v.hypervisorPercent());
            figure(w, "policyPercent", v.policyPercent());
            figure(w, "accessesPerSwitch", v.accessesPerSwitch());
            figure(w, "lost", v.lost());
            w.name("guests").beginArray();
            for (StudyReport.Guest g : v.guests()) {
                w.beginObject().member("name", g.name()).member("sources", g.sources());
                figure(w, "samples", g.samples());
                figure(w, "errorA", g.errorA());
                figure(w, "maxA", g.maxA());
                figure(w, "errorB", g.errorB());
                figure(w, "maxB", g.maxB());
                w.member("differsA", g.differsA()).member("differsB", g.differsB()).endObject();
            }
            w.endArray().endObject();
        }
        w.endArray().endObject();
    }

    private static void figure(Json w, String name, StudyReport.Figure f) {
        w.name(name).beginObject().member("mean", f.n() == 0 ? Double.NaN : f.mean())
                .member("halfWidth", f.halfWidth()).member("n", f.n()).endObject();
    }
}

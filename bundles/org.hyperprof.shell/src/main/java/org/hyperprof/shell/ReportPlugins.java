package org.hyperprof.shell;

import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The report renderers and report file writers bound right now, tracked once for every command that
 * renders, exports or lists them ({@code hp:report}, {@code hp:export}, {@code hp:profile},
 * {@code hp:read}, {@code hp:reports}, {@code hp:commands}). A component of the shell bundle whose
 * service only the shell's own command components use (its package is private).
 */
@Component(service = ReportPlugins.class)
public final class ReportPlugins {
    private final Plugins<ReportRenderer> renderers = new Plugins<>();
    private final Plugins<ReportFileWriter> writers = new Plugins<>();
    /** File writers are named by the renderers' property ({@code report.name}) too. */
    private final PluginKinds kinds = new PluginKinds().kind(ReportRenderer.class, ReportRenderer.IDENTITY, renderers)
            .kind(ReportFileWriter.class, ReportRenderer.IDENTITY, writers);

    /** The renderers bound now, by {@code report.name}. */
    public Plugins<ReportRenderer> renderers() {
        return renderers;
    }

    /** The file writers bound now, by {@code report.name}. */
    public Plugins<ReportFileWriter> writers() {
        return writers;
    }

    /** What {@link #bindReport} binds. */
    static final String REPORTS = "(|(objectClass=org.hyperprof.api.report.ReportRenderer)"
            + "(objectClass=org.hyperprof.api.report.ReportFileWriter))";

    @Reference(service = Object.class, target = REPORTS, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindReport")
    void bindReport(Object report, ServiceReference<?> ref) {
        kinds.bind(report, ref);
    }

    void unbindReport(ServiceReference<?> ref) {
        kinds.unbind(ref);
    }
}

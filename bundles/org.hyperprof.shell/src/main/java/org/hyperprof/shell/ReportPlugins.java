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

    /** The renderers bound now, by {@code report.name}. */
    public Plugins<ReportRenderer> renderers() {
        return renderers;
    }

    /** The file writers bound now, by {@code report.name}. */
    public Plugins<ReportFileWriter> writers() {
        return writers;
    }

    @Reference(service = ReportRenderer.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindRenderer")
    void bindRenderer(ReportRenderer renderer, ServiceReference<ReportRenderer> ref) {
        renderers.add(ref, renderer, Plugins.name(ref, ReportRenderer.IDENTITY), Plugins.provider(ref));
    }

    void unbindRenderer(ServiceReference<ReportRenderer> ref) {
        renderers.remove(ref);
    }

    @Reference(service = ReportFileWriter.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindWriter")
    void bindWriter(ReportFileWriter writer, ServiceReference<ReportFileWriter> ref) {
        writers.add(ref, writer, Plugins.name(ref, ReportRenderer.IDENTITY), Plugins.provider(ref));
    }

    void unbindWriter(ServiceReference<ReportFileWriter> ref) {
        writers.remove(ref);
    }
}

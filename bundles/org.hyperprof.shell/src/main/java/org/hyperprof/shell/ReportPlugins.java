package org.hyperprof.shell;

import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.util.tracker.ServiceTracker;

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
    private final ServiceTracker<Object, Object> tracker;

    @Activate
    public ReportPlugins(BundleContext context) {
        tracker = kinds.tracker(context);
        tracker.open();
    }

    /** The renderers bound now, by {@code report.name}. */
    public Plugins<ReportRenderer> renderers() {
        return renderers;
    }

    /** The file writers bound now, by {@code report.name}. */
    public Plugins<ReportFileWriter> writers() {
        return writers;
    }

    @Deactivate
    void deactivate() {
        tracker.close();
    }
}

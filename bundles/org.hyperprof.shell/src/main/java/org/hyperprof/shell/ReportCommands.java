package org.hyperprof.shell;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.report.ReportRenderer;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * {@code hp:report}: the report of a session. Needs only the renderers, so the sessions they keep
 * stay printable while the core bundles are stopped or replaced.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=report"})
public class ReportCommands {
    private final Console console;
    private final Renderers renderers;

    public ReportCommands() {
        this(Console.system(), new Plugins<>());
    }

    public ReportCommands(Console console, Plugins<ReportRenderer> renderers) {
        this.console = console;
        this.renderers = new Renderers(renderers);
    }

    @Descriptor("print a session's report (default: the latest session, all domains, opreport)")
    public void report(@Descriptor("[--session N] [--domain D] [--renderer name] [option...], e.g. symbols top=10")
            String... args) {
        Guard.run(console, HpCommand.REPORT, out -> {
            CommandLines.Report line = CommandLines.report(args);
            Plugins.Entry<ReportRenderer> renderer = renderers.choose(line.renderer(), "--renderer")
                    .orElseThrow(() -> new IllegalStateException("no report renderer is installed (hp:reports);"
                            + " start one, e.g. org.hyperprof.report.opreport"));
            out.print(Renderers.render(renderer, line.request()));
        });
    }

    @Reference(service = ReportRenderer.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindRenderer")
    void bindRenderer(ReportRenderer renderer, ServiceReference<ReportRenderer> ref) {
        renderers.plugins().add(ref, renderer, Plugins.name(ref, ReportRenderer.NAME, "(no report.name)"),
                Plugins.provider(ref));
    }

    void unbindRenderer(ServiceReference<ReportRenderer> ref) {
        renderers.plugins().remove(ref);
    }
}

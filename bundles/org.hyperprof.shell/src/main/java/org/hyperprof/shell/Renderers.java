package org.hyperprof.shell;

import java.util.Optional;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.command.kit.ReportWords;
import org.hyperprof.command.kit.UsageException;

/** Picks a report renderer by name and renders a whole report before anything is printed. */
public final class Renderers {
    private final Plugins<ReportRenderer> renderers;

    public Renderers(Plugins<ReportRenderer> renderers) {
        this.renderers = renderers;
    }

    public Plugins<ReportRenderer> plugins() {
        return renderers;
    }

    /**
     * The renderer asked for; when none was named, opreport, or the only one installed. Empty when
     * none was named and none is installed.
     *
     * @param option the option that names a renderer in the calling command, for the message
     */
    public Optional<Plugins.Entry<ReportRenderer>> choose(String name, String option) {
        if (name != null) {
            return Optional.of(renderers.find(name).orElseThrow(() -> new IllegalArgumentException(
                    "no report renderer '" + name + "' is installed; installed are " + renderers.names()
                            + " (hp:reports)")));
        }
        Optional<Plugins.Entry<ReportRenderer>> preferred = renderers.find(CommandLines.DEFAULT_RENDERER);
        if (preferred.isPresent() || renderers.list().size() <= 1) {
            return preferred.isPresent() ? preferred : renderers.list().stream().findFirst();
        }
        throw new IllegalArgumentException("no " + CommandLines.DEFAULT_RENDERER + " renderer is installed and "
                + renderers.list().size() + " others are: name one with " + option + " (" + renderers.names() + ")");
    }

    /** Whether the renderer lists {@code option} among its options (by name, before its description). */
    public static boolean offers(Plugins.Entry<ReportRenderer> renderer, String option) {
        try {
            return renderer.service().options().stream().anyMatch(o -> ReportWords.optionName(o).equals(option));
        } catch (RuntimeException e) {
            // A renderer that cannot list its options offers none; its report is unaffected.
            return false;
        }
    }

    /**
     * Refuses, before any work, an option word the renderer does not list, so a typo does not cost a
     * run. A renderer that cannot list its options is left to judge its own words when it renders.
     */
    static void checkOptions(Optional<Plugins.Entry<ReportRenderer>> renderer, java.util.Set<String> words)
            throws UsageException {
        if (renderer.isEmpty()) {
            if (!words.isEmpty()) {
                throw new UsageException("report options (" + String.join(" ", words) + ") need a report renderer,"
                        + " and none is installed (hp:reports)");
            }
            return;
        }
        java.util.List<String> described;
        try {
            described = renderer.get().service().options();
        } catch (RuntimeException e) {
            return;
        }
        ReportWords.check(renderer.get().name(), described, words);
    }

    /** Whether the report words ask for a report for scripts ({@code format=json} or {@code format=csv}). */
    static boolean forScripts(java.util.Set<String> words) {
        return words.stream().anyMatch(w -> w.toLowerCase(java.util.Locale.ROOT).matches("format=(json|csv)"));
    }

    /**
     * The whole report text, ending in a line break; or the renderer's message, naming the
     * renderer: never half a report.
     */
    public static String render(Plugins.Entry<ReportRenderer> renderer, ReportRequest request)
            throws java.io.IOException, ReportException {
        StringBuilder text = new StringBuilder();
        try {
            renderer.service().render(request, text);
        } catch (ReportException e) {
            // Name the renderer, unless its message already starts with its name.
            String m = String.valueOf(e.getMessage());
            throw m.startsWith(renderer.name()) ? e : new ReportException(renderer.name() + ": " + m);
        }
        if (text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
            text.append(System.lineSeparator());
        }
        return text.toString();
    }
}

package org.hyperprof.api.report;

import java.io.IOException;
import java.util.List;

import org.hyperprof.api.plugin.PluginIdentity;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A consumer that can print what it collected, registered with the {@value #NAME} property
 * (e.g. {@code opreport}). The shell lists renderers and prints their reports.
 */
@ConsumerType
public interface ReportRenderer {
    /** Service property: the report's name, as the shell's commands take it. */
    String NAME = "report.name";

    /** A renderer (and a {@link ReportFileWriter}) is known by its {@value #NAME} property. */
    PluginIdentity IDENTITY = new PluginIdentity(NAME, "report", "opreport");

    /** The sessions it can render, oldest first. */
    List<Long> sessions();

    /** The options {@link ReportRequest#options()} may hold, with a short description each. */
    List<String> options();

    /** Writes the report. */
    void render(ReportRequest request, Appendable out) throws IOException, ReportException;
}

package org.hyperprof.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.api.report.ReportRequest;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * {@code hp:report}: the report of a session; {@code hp:export}: a session written to a file by a
 * report file writer (pprof, flame graphs). Needs only the renderers and writers, so the sessions
 * they keep stay printable while the core bundles are stopped or replaced.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=report",
        "osgi.command.function=export"})
public class ReportCommands {
    private final Console console;
    private final Renderers renderers;
    private final Plugins<ReportFileWriter> writers;

    public ReportCommands() {
        this(Console.system(), new Plugins<>(), new Plugins<>());
    }

    public ReportCommands(Console console, Plugins<ReportRenderer> renderers) {
        this(console, renderers, new Plugins<>());
    }

    public ReportCommands(Console console, Plugins<ReportRenderer> renderers, Plugins<ReportFileWriter> writers) {
        this.console = console;
        this.renderers = new Renderers(renderers);
        this.writers = writers;
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

    @Descriptor("write a session to a file with a report file writer (report.name), e.g. pprof or a flame graph")
    public void export(@Descriptor("<name> <format> <file> [--session N] [--domain D], e.g. flamegraph svg /tmp/hp.svg")
            String... args) {
        Guard.run(console, HpCommand.EXPORT, out -> {
            CommandLines.Export line = CommandLines.export(args);
            Plugins.Entry<ReportFileWriter> writer = writers.find(line.writer())
                    .orElseThrow(() -> new IllegalArgumentException("no report file writer '" + line.writer()
                            + "' is installed; installed are " + writers.names() + " (hp:reports)"));
            List<String> formats = formats(writer.service());
            if (!formats.isEmpty() && !formats.contains(line.format())) {
                throw new IllegalArgumentException(writer.name() + " writes " + String.join(", ", formats) + ", not '"
                        + line.format() + "'; e.g. hp:export " + writer.name() + " " + formats.get(0) + " "
                        + line.file());
            }
            Path target = target(line.file());
            Path written;
            try {
                written = writer.service().write(line.request(), line.format(), target);
            } catch (ReportException e) {
                String m = String.valueOf(e.getMessage());
                throw m.startsWith(writer.name()) ? e : new ReportException(writer.name() + ": " + m);
            } catch (IOException e) {
                // Some I/O messages are only a path: say what failed and what kind of failure it was.
                throw new IOException(writer.name() + " could not write " + target + ": " + e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
            }
            Path file = written == null ? target : written;
            out.println("wrote " + what(line.request()) + " as " + writer.name() + " " + line.format() + " to " + file
                    + size(file));
            String next = openWith(line.format(), file);
            if (next != null) {
                out.println(next);
            }
        });
    }

    /** The format names a writer lists, each before its description (e.g. {@code svg} of "svg: ..."). */
    static List<String> formats(ReportFileWriter writer) {
        return writer.formats().stream().map(Renderers::optionName).filter(n -> !n.isEmpty())
                .collect(Collectors.toList());
    }

    /**
     * The file to write as an absolute path, checked before the writer works: not a directory, in a
     * directory that exists and is writable. {@code ~/} means the home directory.
     */
    static Path target(String file) {
        String name = file.startsWith("~/") ? System.getProperty("user.home") + file.substring(1) : file;
        Path path;
        try {
            path = Path.of(name).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + file + "' is not a file name this system accepts: "
                    + e.getReason());
        }
        if (Files.isDirectory(path)) {
            throw new IllegalArgumentException(path + " is a directory; give a file name in it, e.g. "
                    + path.resolve("hyperprof.out"));
        }
        Path dir = path.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("directory " + dir + " does not exist; create it first or write the file"
                    + " elsewhere, e.g. /tmp/" + path.getFileName());
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalArgumentException("cannot write in " + dir + " (no permission); write the file elsewhere,"
                    + " e.g. /tmp/" + path.getFileName());
        }
        return path;
    }

    private static String what(ReportRequest request) {
        return (request.sessionId() == ReportRequest.LATEST ? "the latest session" : "session " + request.sessionId())
                + (request.domain() == ReportRequest.ALL_DOMAINS ? " (all domains)" : " (dom" + request.domain() + ")");
    }

    private static String size(Path file) {
        try {
            return " (" + Files.size(file) + " bytes)";
        } catch (IOException e) {
            return "";
        }
    }

    /** How to open what was written, for the formats whose tool is known. */
    static String openWith(String format, Path file) {
        return switch (format) {
            case "pprof" -> "open it with: go tool pprof -top " + file;
            case "svg" -> "open it in a web browser: file://" + file;
            default -> null;
        };
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

    @Reference(service = ReportFileWriter.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindWriter")
    void bindWriter(ReportFileWriter writer, ServiceReference<ReportFileWriter> ref) {
        writers.add(ref, writer, Plugins.name(ref, ReportRenderer.NAME, "(no report.name)"), Plugins.provider(ref));
    }

    void unbindWriter(ServiceReference<ReportFileWriter> ref) {
        writers.remove(ref);
    }
}

package org.hyperprof.report.annotate;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.report.kit.RenderingConsumer;
import org.hyperprof.report.kit.RequestOptions;
import org.hyperprof.report.kit.SessionShelf;
import org.osgi.service.component.annotations.Component;

/**
 * The {@code annotate} sample consumer: counts each session's samples by symbol, process and pc,
 * and renders one function's instructions with their samples, as perf annotate and opannotate do
 * ({@code hp:annotate}). The disassembly is binutils' objdump's, run when a function is annotated.
 *
 * <p>Not registered as a {@code ReportRenderer}: an annotation answers for one function, never for
 * a whole session, so it must not be a report {@code hp:report} or {@code hp:profile} could choose
 * (with opreport gone, the flame graph stays the only renderer). Its command finds it by its class.
 */
@Component(service = { SampleConsumer.class, AnnotateConsumer.class }, property = {
        SampleConsumer.NAME + "=" + AnnotateConsumer.NAME })
public final class AnnotateConsumer extends RenderingConsumer<AddressCounts> {

    /** Its {@code consumer.name}. */
    public static final String NAME = "annotate";

    /** Sessions kept, as the other reports keep them. */
    static final int RETAINED_SESSIONS = 16;

    static final List<String> OPTIONS = List.of(
            "symbol=NAME: the function to annotate, by its name as the reports print it (or as recorded)",
            "image=REGEX: only the images whose name matches (when the name is a symbol of several)",
            "source: the source lines (DWARF, objdump -S -l) above their instructions",
            "format=text|json: text (the default) or JSON for scripts");

    private final Annotator annotator;

    /** DS: binutils from the PATH. */
    public AnnotateConsumer() {
        this(new Binutils());
    }

    AnnotateConsumer(Binutils binutils) {
        super("annotate consumer", new SessionShelf<>(NAME, "annotate a function of it (hp:annotate)",
                RETAINED_SESSIONS, AddressCounts::new), OPTIONS);
        this.annotator = new Annotator(binutils);
    }

    @Override
    protected String report(ReportRequest request) throws ReportException {
        RequestOptions options = new RequestOptions(NAME, OPTIONS, request.options());
        List<String> symbol = options.withValue("symbol");
        List<String> image = options.withValue("image");
        boolean source = options.flag("source");
        List<String> format = options.withValue("format");
        options.check();
        if (symbol.size() != 1 || RequestOptions.value(symbol.get(0), "symbol").isEmpty()) {
            throw new ReportException("annotate needs the function: one symbol=NAME (hp:annotate NAME)");
        }
        String name = RequestOptions.value(symbol.get(0), "symbol");
        String regex = image.isEmpty() ? null : RequestOptions.value(image.get(image.size() - 1), "image");
        String shape = format.isEmpty() ? "text" : formatName(RequestOptions.value(format.get(0), "format"));
        if (!shape.equals("text") && !shape.equals("json")) {
            throw new ReportException("option '" + format.get(0) + "': annotate prints text or json");
        }
        Annotation a = annotation(request, name, regex, source);
        return shape.equals("json") ? AnnotationText.json(a) : AnnotationText.text(a);
    }

    /**
     * The annotation of function {@code name} in the request's session and domain.
     *
     * @param imageRegex a regular expression the image's name must contain, or null
     */
    Annotation annotation(ReportRequest request, String name, String imageRegex, boolean source)
            throws ReportException {
        Pattern imagePattern = null;
        if (imageRegex != null) {
            try {
                imagePattern = Pattern.compile(imageRegex);
            } catch (PatternSyntaxException e) {
                throw new ReportException("option 'image=" + imageRegex + "': not a regular expression: "
                        + e.getDescription());
            }
        }
        int domain = request.domain() == ReportRequest.ALL_DOMAINS ? -1 : request.domain();
        return annotator.annotate(aggregate(request), name, imagePattern, domain, source);
    }
}

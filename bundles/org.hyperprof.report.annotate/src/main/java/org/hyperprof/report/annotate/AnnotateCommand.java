package org.hyperprof.report.annotate;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.store.StoreException;
import org.hyperprof.command.kit.Args;
import org.hyperprof.command.kit.Completion;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.SessionStores;
import org.hyperprof.command.kit.Option;
import org.hyperprof.command.kit.Syntax;
import org.hyperprof.command.kit.UsageException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:annotate <symbol>}: one function's instructions with the samples of each, as perf
 * annotate and opannotate print them. It asks this bundle's consumer; a session the consumer no
 * longer keeps is first replayed from the session store, as {@code hp:report} does.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=annotate"})
public final class AnnotateCommand {

    /** What {@code hp:annotate} takes: its table's usage line, and its {@code @Descriptor} (a constant). */
    static final String ARGUMENTS = "<symbol> [--session ID|NAME] [--domain D] [--image REGEX] [--source]"
            + " [--format text|json]";

    static final Syntax ANNOTATE = Syntax.of("hp:annotate", "a function's instructions with the samples and share of"
            + " each (perf annotate, opannotate --assembly), disassembled by binutils' objdump")
            .before("<symbol>", Completion.NONE)
            .options(Option.value("--session", "ID|NAME", "a session by its id or its name (default: the latest;"
                    + " hp:reports lists those kept, hp:sessions those stored)").completedBy(Completion.SESSION),
                    Option.value("--domain", "D", "only the samples of one domain (default: all)")
                            .completedBy(Completion.DOMAIN),
                    Option.value("--image", "REGEX", "the image whose function it is, when several have one of"
                            + " that name (a regular expression found in the image's path)"),
                    Option.flag("--source", "the source lines (from DWARF: objdump -S -l) above their"
                            + " instructions, as opannotate --source"),
                    Option.choice("--format", List.of("text", "json"), "text (the default) or JSON for scripts"))
            .notes("  <symbol> is the function's name as hp:report prints it (demangled or short) or as recorded.\n"
                    + "  The samples are those of the session's first event.\n"
                    + "  The image must be an ELF file on this machine, and the session must say where it lay in\n"
                    + "  memory (a perf.data import does); for anything else it says why it cannot annotate.");

    private final Console console;
    private final AnnotateConsumer annotate;

    /** Where sessions the consumer no longer keeps are replayed from; optional. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    @Activate
    public AnnotateCommand(@Reference(name = "consumer") AnnotateConsumer annotate) {
        this(Console.system(), annotate);
    }

    AnnotateCommand(Console console, AnnotateConsumer annotate) {
        this.console = console;
        this.annotate = annotate;
    }

    @Descriptor("a function's instructions with the samples and share of each (perf annotate), by objdump")
    public void annotate(@Descriptor(ARGUMENTS) String... args) {
        Guard.run(console, ANNOTATE, args, out -> {
            Args a = ANNOTATE.parse(args).atMostPositional(1, "one symbol")
                    .atLeastPositional(1, "name the function to annotate, e.g. hp:annotate main");
            Set<String> options = new LinkedHashSet<>();
            options.add("symbol=" + a.positional().get(0));
            if (a.value("--image") != null) {
                options.add("image=" + a.value("--image"));
            }
            if (a.flag("--source")) {
                options.add("source");
            }
            if (a.value("--format") != null) {
                options.add("format=" + a.value("--format"));
            }
            int domain = a.value("--domain") == null ? ReportRequest.ALL_DOMAINS
                    : Args.domid(a.value("--domain"), "--domain");
            long session = session(a.value("--session"));
            SessionStores.replayIfMissing(store, session, annotate::sessions);
            StringBuilder text = new StringBuilder();
            annotate.render(new ReportRequest(session, domain, options), text);
            out.print(text);
        });
    }

    /** The session's id: digits are an id, any other word a stored session's name. */
    private long session(String given) throws UsageException, StoreException {
        if (given == null) {
            return ReportRequest.LATEST;
        }
        String s = given.strip();
        if (s.matches("[0-9]+")) {
            return Args.number(s, "--session", 0, Long.MAX_VALUE);
        }
        return SessionStores.named(store, s);
    }
}

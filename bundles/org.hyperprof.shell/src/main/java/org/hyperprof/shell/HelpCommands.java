package org.hyperprof.shell;

import java.io.PrintStream;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.hyperprof.command.kit.Console;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.Table;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * {@code hp:commands}: the commands, and the opcontrol workflow of the 2006 slides walked by hand. Not
 * named {@code help}: Gogo resolves an unscoped {@code help} to any scope's, and plain {@code help}
 * belongs to Gogo ({@code felix:help}).
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=commands"})
public class HelpCommands {
    /** What {@code hp:commands} takes: its usage line ({@link HpCommand}) and its {@code @Descriptor}. */
    static final String COMMANDS_ARGUMENTS = "[command]";

    /**
     * Two active domains, as in the IA README and the Xen Summit 2006 slides: dom0 is the primary
     * and lists the domains; each other active domain starts its own daemon, which is what lets
     * dom0's start pass; the domUs shut down before dom0.
     */
    static final String RECIPE = String.join(System.lineSeparator(),
            "Walk the workflow by hand (dom0 primary, dom1 active):",
            "  hp:load                                  the default host: dom0 driver domain, dom1 receiver",
            "  hp:opcontrol 0 --start-daemon --active-domains=0,1 --event=CPU_CLK_UNHALTED:100000:0:1:1",
            "                                           init, lists, counters, setup_events, dom0's enable_virq",
            "  hp:opcontrol 1 --start-daemon            dom1's init, get_buffer and enable_virq",
            "  hp:opcontrol 0 --start                   start: allowed once every listed domain is ready",
            "  hp:run 500                               run the host 500 ms simulated, sampling",
            "  hp:opcontrol 0 --stop                    stop, and the flush to every active domain",
            "  hp:opcontrol 1 --shutdown                dom1's disable_virq (the domUs go first)",
            "  hp:opcontrol 0 --shutdown                dom0's disable_virq, release_counters",
            "  hp:report                                the report of the session",
            "At any point hp:state shows the state, the lists and the next step; hp:op <domid> <op> makes one",
            "hypercall at a time instead (hp:op --help). hp:profile does the whole run in one command:",
            HelpTexts.MULTI_DOMAIN,
            "Mid-session: hp:domain <domid> pause|unpause|destroy; hp:guest <domid> <vcpu> head|tail <value> makes a",
            "guest scribble on its own buffer. Files for other tools: hp:export (hp:export --help).");

    private final Console console;
    private final Plugins<ReportRenderer> renderers;
    private final Plugins<ReportFileWriter> writers;

    @Activate
    public HelpCommands(@Reference(name = "reports") ReportPlugins reports) {
        this(Console.system(), reports.renderers(), reports.writers());
    }

    /** With the renderers and writers whose options and formats {@code hp:commands report|export} lists. */
    HelpCommands(Console console, Plugins<ReportRenderer> renderers, Plugins<ReportFileWriter> writers) {
        this.console = console;
        this.renderers = renderers;
        this.writers = writers;
    }

    @Descriptor("list the hp commands, or show one command's usage and options")
    public void commands(@Descriptor(COMMANDS_ARGUMENTS) String... args) {
        Guard.run(console, HpCommand.COMMANDS.syntax(), args, out -> {
            String asked = args == null || args.length != 1 ? null : args[0].strip().replaceFirst("^hp:", "");
            String bundle = asked == null ? null : contributedBy.get(asked);
            if (bundle != null) {
                // Another bundle's command: it prints its own help (Gogo's help cannot show hp:import's: import
                // is a Java keyword, so its method is named _import).
                out.println("hp:" + asked + " is a command of bundle " + bundle + "; hp:" + asked
                        + " --help prints its usage and options");
                return;
            }
            HpCommand command = CommandLines.help(args);
            if (command == null) {
                printList(out);
                printContributed(out);
            } else {
                printOne(command, out);
                printInstalled(command, out);
            }
        });
    }

    /** {@code hp:} commands other bundles register (the study, a user's own), by bundle. */
    private final java.util.Map<Long, String> contributed = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** The bundle of each of those commands, by function name. */
    private final java.util.Map<String, String> contributedBy = new java.util.concurrent.ConcurrentHashMap<>();

    @Reference(service = Object.class, target = "(osgi.command.scope=hp)", cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindCommands")
    void bindCommands(ServiceReference<Object> ref) {
        if (ref.getBundle() == null || ref.getBundle().getSymbolicName().equals("org.hyperprof.shell")) {
            return;
        }
        Object functions = ref.getProperty("osgi.command.function");
        String[] names = functions instanceof String[] a ? a : new String[] {String.valueOf(functions)};
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            if (HpCommand.find(n) == null) {
                b.append(b.length() == 0 ? "" : ", ").append("hp:").append(n);
                contributedBy.put(n, ref.getBundle().getSymbolicName());
            }
        }
        if (b.length() > 0) {
            contributed.put((Long) ref.getProperty(org.osgi.framework.Constants.SERVICE_ID),
                    b + " (bundle " + ref.getBundle().getSymbolicName() + ")");
        }
    }

    void unbindCommands(ServiceReference<Object> ref) {
        contributed.remove((Long) ref.getProperty(org.osgi.framework.Constants.SERVICE_ID));
        Object functions = ref.getProperty("osgi.command.function");
        for (String n : functions instanceof String[] a ? a : new String[] {String.valueOf(functions)}) {
            contributedBy.remove(n);
        }
    }

    private void printContributed(PrintStream out) {
        if (contributed.isEmpty()) {
            return;
        }
        out.println("Commands other bundles add (each prints its usage when given a wrong argument):");
        for (String line : contributed.values()) {
            out.println("  " + line);
        }
    }

    /** What the plug-ins installed right now accept: renderer options, writer formats. */
    private void printInstalled(HpCommand command, PrintStream out) {
        if (command == HpCommand.REPORT) {
            if (renderers.list().isEmpty()) {
                out.println("no report renderer is installed right now (hp:reports)");
            } else {
                PluginCommands.printRendererOptions(renderers, out);
            }
        } else if (command == HpCommand.EXPORT) {
            if (writers.list().isEmpty()) {
                out.println("no report file writer is installed right now (hp:reports)");
            } else {
                PluginCommands.printWriterFormats(writers, out);
            }
        }
    }

    static void printList(PrintStream out) {
        out.println("Hyperprof commands (hp:<command> --help for one command's arguments):");
        Table t = new Table("", "");
        for (HpCommand c : HpCommand.values()) {
            t.row("  " + c.scoped(), c.summary());
        }
        t.print(out);
        out.println();
        out.println(RECIPE);
        out.println("The framework's and the shell's own commands (lb, start, stop, ...): help");
    }

    static void printOne(HpCommand c, PrintStream out) {
        out.println(c.syntax().help());
    }
}

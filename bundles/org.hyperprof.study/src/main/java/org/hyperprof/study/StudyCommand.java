package org.hyperprof.study;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.felix.service.command.Descriptor;
import org.hyperprof.api.command.CommandFailure;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.StopRequests;
import org.hyperprof.api.input.NotAFileException;
import org.hyperprof.api.output.OutputException;
import org.hyperprof.api.output.OutputFiles;
import org.hyperprof.api.output.Written;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SampleConsumer;
import org.hyperprof.api.store.SessionStore;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.command.kit.Guard;
import org.hyperprof.command.kit.UsageException;
import org.hyperprof.command.kit.WrittenLine;
import org.hyperprof.input.InputFile;
import org.hyperprof.shell.session.WorkingFolder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code hp:study}: runs one scenario under each installed counter-virtualization policy variant
 * and prints, per variant, the hypervisor's overhead, each guest's profile error under both
 * definitions of the truth, counter accesses per switch and samples lost; writes the table as CSV
 * and a chart as SVG through {@link OutputFiles} (the folder of {@code --out} is created; the files
 * follow the rule of every file Hyperprof writes). Problems print one line each on the error
 * stream, never a stack trace; a variant that fails does not stop the others.
 *
 * <p>While it runs, the study registers its own sample consumer ({@code consumer.name=study}) and
 * loads the scenario once per variant, so the current host afterwards is the last variant's.
 */
@Component(service = Object.class, property = {"osgi.command.scope=hp", "osgi.command.function=study"})
public class StudyCommand {
    private static final String COMMAND = "hp:study";

    private final HostService hosts;
    private final Profiler profiler;
    private final OutputFiles output;
    private final StudyRunner.ConsumerRegistry registry;
    private final Supplier<Collection<String>> installed;
    private final Supplier<PrintStream> out;
    private final Supplier<PrintStream> err;
    private final Duration endTimeout;

    /** Ctrl-C and SIGTERM, when a command line provides them. */
    private volatile StopRequests stops = StopRequests.NONE;

    /** The session store, which hides the study's sessions from hp:sessions (null when none is installed). */
    @Reference(name = "store", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile SessionStore store;

    /** Where the last study is kept for other readers (the web view); null outside a framework. */
    @Reference(name = "last", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile LastStudy last;

    /** Installed policies' names, by service reference. */
    private final Map<ServiceReference<?>, String> policies = new ConcurrentHashMap<>();
    /** Installed policies' bundle versions, by name (for the CSV, so a reader can reproduce the study). */
    private final Map<String, String> policyVersions = new ConcurrentHashMap<>();

    /** The constructor Declarative Services calls. Output goes to the calling Gogo session's streams. */
    @Activate
    public StudyCommand(BundleContext context, @Reference(name = "hosts") HostService hosts,
            @Reference(name = "profiler") Profiler profiler, @Reference(name = "output") OutputFiles output) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.output = output;
        this.registry = (consumer, name) -> register(context, consumer, name);
        this.installed = () -> policies.values();
        // Gogo replaces System.out/err per session: look them up at every call, never keep them.
        this.out = () -> System.out;
        this.err = () -> System.err;
        this.endTimeout = StudyRunner.DEFAULT_END_TIMEOUT;
    }

    /** The plain-Java constructor (tests, embedding). */
    StudyCommand(HostService hosts, Profiler profiler, OutputFiles output, StudyRunner.ConsumerRegistry registry,
            Supplier<Collection<String>> installedPolicies, PrintStream out, PrintStream err, Duration endTimeout) {
        this.hosts = hosts;
        this.profiler = profiler;
        this.output = output;
        this.registry = registry;
        this.installed = installedPolicies;
        this.out = () -> out;
        this.err = () -> err;
        this.endTimeout = endTimeout;
    }

    @Reference(name = "policy", service = CounterVirtualizationPolicy.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindPolicy")
    void bindPolicy(ServiceReference<CounterVirtualizationPolicy> reference) {
        // One without its name is left out: the host cannot load it either, and says why when it binds it.
        CounterVirtualizationPolicy.IDENTITY.find(reference::getProperty)
                .ifPresent(name -> {
                    policies.put(reference, name);
                    if (reference.getBundle() != null) {
                        policyVersions.put(name, reference.getBundle().getVersion().toString());
                    }
                });
    }

    void unbindPolicy(ServiceReference<CounterVirtualizationPolicy> reference) {
        policies.remove(reference);
    }

    @Reference(name = "stops", service = StopRequests.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindStops")
    void bindStops(StopRequests stops) {
        this.stops = stops;
    }

    void unbindStops(StopRequests stops) {
        if (this.stops == stops) {
            this.stops = StopRequests.NONE;
        }
    }

    private static AutoCloseable register(BundleContext context, SampleConsumer consumer, String name) {
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put(SampleConsumer.NAME, name);
        ServiceRegistration<SampleConsumer> registration = context.registerService(SampleConsumer.class, consumer,
                properties);
        return () -> {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The bundle stopped meanwhile: the framework unregistered it.
            }
        };
    }

    @Descriptor("run a scenario under each counter-virtualization policy; print overhead and each guest's profile"
            + " error against both truths; write hyperprof-study-<scenario>.csv and .svg")
    public void study(@Descriptor(StudyArgs.ARGUMENTS) String... args) {
        PrintStream o = out.get();
        PrintStream e = err.get();
        if (Guard.helpAsked(args)) {
            o.println(StudyArgs.SYNTAX.help());
            return;
        }
        StudyArgs.SYNTAX.acceptKeyValue(args, e);
        // Closed last: after Ctrl-C a piped session exits there, once the results are out.
        try (StopRequests.Watch watch = stops.watch(COMMAND)) {
            study(args, o, e, watch);
        }
    }

    private void study(String[] args, PrintStream o, PrintStream e, StopRequests.Watch watch) {
        boolean ran = false;
        try {
            ran = execute(StudyArgs.parse(args), o, e, watch);
        } catch (UsageException u) {
            throw Guard.usage(e, StudyArgs.SYNTAX, u);
        } catch (InterruptedException i) {
            Thread.currentThread().interrupt();
            e.println(COMMAND + ": interrupted; the study stopped");
        } catch (Exception | LinkageError x) {
            e.println(COMMAND + " failed unexpectedly: " + StudyRunner.oneLine(x));
        } finally {
            o.flush();
            e.flush();
        }
        if (!ran) {
            // Printed above; thrown so that a script or the launcher sees the failure in the call itself.
            throw new CommandFailure(COMMAND, CommandFailure.FAILED);
        }
    }

    /** Runs the study; false when it could not (said on {@code e}). */
    private boolean execute(StudyArgs args, PrintStream o, PrintStream e, StopRequests.Watch watch) throws Exception {
        String scenario = WorkingFolder.nameOrFile(args.scenario(), hosts.scenarios());
        String scenarioProblem = scenarioProblem(scenario);
        if (scenarioProblem != null) {
            e.println(COMMAND + ": " + scenarioProblem);
            return false;
        }
        List<Variant> variants = variants(args.policies(), o, e);
        if (variants.isEmpty()) {
            e.println(COMMAND + ": no policy variant to run; installed policies: " + installedText());
            return false;
        }
        // Made (or refused) before the run, which may be long; only after every other check.
        Path folder;
        try {
            folder = output.folder(WorkingFolder.resolve(args.out().toString()));
        } catch (OutputException x) {
            e.println(COMMAND + ": --out: " + x.getMessage());
            return false;
        }
        StudySessions made = new StudySessions(store, StudySessions.name(scenario, Instant.now()),
                line -> e.println(COMMAND + ": " + line));
        StudyRunner runner = new StudyRunner(hosts, profiler, registry, endTimeout, args.jobs());
        long[] wall = new long[variants.size()];
        List<Results.Study> studies = runner.runSeeds(scenario, variants, args.ms(), args.seeds(), o::println,
                line -> e.println(COMMAND + ": " + line), watch, made, wall);
        if (studies.isEmpty()) {
            e.println(COMMAND + ": stopped before the first run");
            return false;
        }
        Results.Study study = studies.get(0);
        String base = "hyperprof-study-" + fileName(study.scenario());
        String csv;
        StudySummary all = new StudySummary(studies);
        String chart = StudyChart.render(all);
        LastStudy keeper = last;
        if (keeper != null) {
            keeper.keep(LastStudy.report(all, chart));
        }
        if (studies.size() == 1) {
            o.print(StudyText.render(study));
            csv = StudyCsv.render(study);
        } else {
            StudySummary summary = new StudySummary(studies);
            o.print(SummaryText.render(summary, wall));
            if (args.vary() != null) {
                o.print(sensitivity(args, scenario, variants, summary, o, e, watch, made));
            }
            csv = SummaryCsv.render(summary, hyperprofVersion(), Map.copyOf(policyVersions));
        }
        boolean written = write(folder.resolve(base + ".csv"), csv, o, e);
        written &= write(folder.resolve(base + ".svg"), chart, o, e);
        if (runner.ranApart()) {
            o.println("the runs had simulated hosts of their own (--jobs " + args.jobs() + "): the current host"
                    + " is unchanged and the reports and the store saw none of their sessions; --jobs 1 runs"
                    + " them on the current host");
        } else {
            o.println("the current host is now " + study.scenario() + " under the last variant; hp:load gives you"
                    + " another");
        }
        if (store != null && !runner.ranApart()) {
            o.println("its sessions are stored as the study's, hidden from hp:sessions: hp:sessions --all lists them"
                    + " (" + made.study() + ")");
        }
        return written;
    }

    /** Re-runs the study with the varied cost scaled by each factor; what changed, as text. */
    private String sensitivity(StudyArgs args, String scenario, List<Variant> variants, StudySummary base,
            PrintStream o, PrintStream e, StopRequests.Watch watch, java.util.function.LongConsumer made)
            throws Exception {
        StudyRunner runner = new StudyRunner(hosts, profiler, registry, endTimeout, args.jobs());
        List<StudySummary> byFactor = new ArrayList<>();
        for (double factor : args.vary().factors()) {
            o.println("varying " + args.vary().key() + " x " + factor);
            List<Results.Study> studies = runner.runSeeds(scenario, args.vary().scaled(variants, factor), args.ms(),
                    args.seeds(), o::println, line -> e.println(COMMAND + ": " + line), watch, made,
                    new long[variants.size()]);
            if (studies.isEmpty()) {
                break;
            }
            byFactor.add(new StudySummary(studies));
        }
        return args.vary().render(base, byFactor);
    }

    /** This bundle's version (Hyperprof's), or n/a outside a framework. */
    private String hyperprofVersion() {
        org.osgi.framework.Bundle bundle = org.osgi.framework.FrameworkUtil.getBundle(StudyCommand.class);
        return bundle == null ? Numbers.NA : bundle.getVersion().toString();
    }

    /** Null when the scenario is embedded or a readable file; otherwise what is wrong, in one line. */
    private String scenarioProblem(String scenario) {
        List<String> embedded = hosts.scenarios();
        if (embedded.contains(scenario)) {
            return null;
        }
        try {
            InputFile.check(Path.of(scenario), "scenario"); // a FIFO or a device is refused here, not read
            return null;
        } catch (NotAFileException notAFile) {
            return notAFile.getMessage();
        } catch (IOException | RuntimeException missingOrInvalid) {
            // No such file, or not a path: fall through to the message.
        }
        return "unknown scenario '" + scenario + "': the embedded scenarios are "
                + (embedded.isEmpty() ? "none" : String.join(", ", embedded)) + "; or give a scenario file's path";
    }

    /**
     * The variants to run, in order; says what it skips and why.
     *
     * @throws UsageException when a name is neither a standard variant nor an installed policy
     */
    List<Variant> variants(List<String> asked, PrintStream o, PrintStream e) throws UsageException {
        SortedSet<String> names = new TreeSet<>(installed.get());
        List<Variant> run = new ArrayList<>();
        if (asked == null) {
            List<String> standard = new ArrayList<>();
            for (Variant v : Variant.STANDARD) {
                standard.add(v.policy());
                if (names.contains(v.policy())) {
                    run.add(v);
                } else {
                    o.println("skipping " + v.label() + ": policy '" + v.policy() + "' is not installed");
                }
            }
            List<String> others = new ArrayList<>(names);
            others.removeAll(standard);
            if (!others.isEmpty()) {
                o.println("also installed: " + String.join(", ", others) + " (name them in --policies to study them)");
            }
            return run;
        }
        // Every name is checked before anything runs: a typo must not cost a study's time.
        List<String> unknown = new ArrayList<>();
        for (String label : asked) {
            if (Variant.standard(label) == null && !names.contains(label)) {
                unknown.add("'" + label + "'");
            }
        }
        if (!unknown.isEmpty()) {
            List<String> known = new ArrayList<>();
            for (Variant s : Variant.STANDARD) {
                known.add(s.label());
            }
            throw new UsageException("unknown policy variant" + (unknown.size() > 1 ? "s " : " ")
                    + String.join(", ", unknown) + ": the variants are " + String.join(", ", known)
                    + ", or any installed policy (installed: " + installedText() + ")");
        }
        for (String label : asked) {
            Variant v = Variant.standard(label);
            if (v == null) {
                v = Variant.other(label);
            }
            if (!names.contains(v.policy())) {
                e.println(COMMAND + ": policy '" + v.policy() + "' of variant " + v.label()
                        + " is not installed (installed: " + installedText() + "); skipping it");
            } else {
                run.add(v);
            }
        }
        return run;
    }

    private String installedText() {
        SortedSet<String> names = new TreeSet<>(installed.get());
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** Writes one result file; false when it could not (said on {@code e}). */
    private boolean write(Path file, String content, PrintStream o, PrintStream e) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        try {
            Written w = output.write(file, out -> out.write(bytes));
            o.println((w.placement() == Written.Placement.STREAMED ? "streamed into " : "wrote ") + WrittenLine.where(w));
            return true;
        } catch (OutputException x) {
            e.println(COMMAND + ": " + x.getMessage());
            return false;
        }
    }

    /** A scenario name (or a file's name without folders and suffix) as a safe file-name part. */
    static String fileName(String scenario) {
        String name = scenario;
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = name.substring(slash + 1);
        if (name.endsWith(".scenario")) {
            name = name.substring(0, name.length() - ".scenario".length());
        }
        name = name.replaceAll("[^A-Za-z0-9._-]", "_");
        return name.isEmpty() ? "scenario" : name;
    }
}

package org.hyperprof.hypervisor.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.hyperprof.hypervisor.sim.scenario.Scenario;
import org.hyperprof.hypervisor.sim.scenario.ScenarioLimits;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;
import org.hyperprof.pipeline.SymbolTables;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Loads scenarios into simulated hosts, with the CPU models and counter-virtualization policies
 * that are installed now. One host is current; loading another stops it. When the model or the
 * policy of the current host departs, the host stops and says which bundle left.
 *
 * <p>Scenario images whose symbols are not System.map text ({@code format=elf}, ...) are read by
 * the {@link SymbolResolver} services installed for their format ({@value SymbolResolver#FORMAT}),
 * through the pipeline's shared {@link SymbolTables}: the profiler finds the tables a load read.
 *
 * <p>Plain Java: {@code new HostServiceImpl()}, then {@link #addModel} and {@link #addPolicy} for
 * each model and policy (with the name of the bundle that would provide it), {@link #addResolver}
 * for each symbol format beyond the built-in text one, then {@link #load}.
 */
@Component(service = HostService.class, configurationPid = ScenarioLimits.PID)
@Designate(ocd = HostConfiguration.class)
public final class HostServiceImpl implements HostService {
    private static final System.Logger LOG = System.getLogger(HostServiceImpl.class.getName());

    /** Resource folder of the embedded scenarios and their symbol files. */
    public static final String SCENARIO_FOLDER = "org/hyperprof/hypervisor/scenarios";
    /** File extension of a scenario resource. */
    public static final String SCENARIO_SUFFIX = ".scenario";
    private static final String INDEX = SCENARIO_FOLDER + "/scenarios.list";

    /** Installed models and policies, guarded by {@link #installedLock}; shared with independent services. */
    private final Map<String, Provided<PmuModel>> models;
    private final Map<String, Provided<CounterVirtualizationPolicy>> policies;
    private final Object installedLock;
    private final SymbolTables symbolTables;
    /** The service whose ceilings this one follows: itself, or the one that made it {@link #independent()}. */
    private final HostServiceImpl root;
    private SimHost current;
    /**
     * Embedded scenarios already parsed, by name: a study loads the same one for every variant and
     * seed, and parsing it (its symbol files resolved) took most of a load. An entry serves while
     * the resolvers and the ceilings are those it was parsed under.
     */
    private final Map<String, Parsed> parsedEmbedded;
    private volatile ScenarioLimits limits = ScenarioLimits.DEFAULT;

    /** Constructor for plain Java wiring, with symbol tables of its own. */
    public HostServiceImpl() {
        this(new SymbolTables());
    }

    /** With the symbol tables (and their resolvers) the profiler shares. */
    public HostServiceImpl(SymbolTables symbolTables) {
        this.symbolTables = Objects.requireNonNull(symbolTables, "symbolTables");
        this.models = new LinkedHashMap<>();
        this.policies = new LinkedHashMap<>();
        this.installedLock = new Object();
        this.parsedEmbedded = new java.util.concurrent.ConcurrentHashMap<>();
        this.root = this;
    }

    /** An independent service: {@code root}'s models, policies, symbol tables, ceilings and parsed scenarios. */
    private HostServiceImpl(HostServiceImpl root) {
        this.symbolTables = root.symbolTables;
        this.models = root.models;
        this.policies = root.policies;
        this.installedLock = root.installedLock;
        this.parsedEmbedded = root.parsedEmbedded;
        this.root = root;
    }

    /**
     * {@inheritDoc}
     *
     * <p>It sees models and policies installed or departing here from then on, and this service's
     * ceilings; a departure stops only the current host of the service that loaded it.
     */
    @Override
    public Optional<HostService> independent() {
        return Optional.of(new HostServiceImpl(root));
    }

    /** The DS constructor: the pipeline's shared symbol tables and the settings of Configuration Admin. */
    @Activate
    public HostServiceImpl(@Reference(name = "symbolTables") SymbolTables symbolTables, HostConfiguration config) {
        this(symbolTables);
        configure(config);
    }

    /** Takes the settings of Configuration Admin; a change applies from the next load. */
    @Modified
    void configure(HostConfiguration config) {
        try {
            limits(ScenarioLimits.of(config.scenario_max_mb(), config.symbols_max_mb()));
        } catch (IllegalArgumentException e) {
            // A bad setting must not take the host service away: keep the ceilings in force and say why.
            LOG.log(System.Logger.Level.WARNING, "PID " + ScenarioLimits.PID + ": " + e.getMessage()
                    + "; the ceilings stay " + limits);
        }
    }

    /** The most a load reads of a scenario and of each System.map (from the next load on). */
    public void limits(ScenarioLimits newLimits) {
        root.limits = Objects.requireNonNull(newLimits, "limits");
    }

    // ------------------------------------------------------------------------------- DS references

    @Reference(name = "model", service = PmuModel.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, unbind = "unbindModel")
    void bindModel(ServiceReference<PmuModel> reference, PmuModel model, Map<String, Object> properties) {
        offer(models, PmuModel.IDENTITY.of(properties, model), model, bundleName(reference));
    }

    void unbindModel(PmuModel model) {
        removeModel(model);
    }

    @Reference(name = "policy", service = CounterVirtualizationPolicy.class,
            cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC, unbind = "unbindPolicy")
    void bindPolicy(ServiceReference<CounterVirtualizationPolicy> reference, CounterVirtualizationPolicy policy,
            Map<String, Object> properties) {
        offer(policies, CounterVirtualizationPolicy.IDENTITY.of(properties, policy), policy, bundleName(reference));
    }

    void unbindPolicy(CounterVirtualizationPolicy policy) {
        removePolicy(policy);
    }

    @Deactivate
    void deactivate() {
        SimHost host;
        synchronized (this) {
            host = current;
            current = null;
        }
        if (host != null) {
            host.stop("the host service (bundle org.hyperprof.hypervisor) stopped; the host stopped, samples already"
                    + " taken are kept; start the bundle and load the scenario again");
        }
    }

    private static String bundleName(ServiceReference<?> reference) {
        Bundle b = reference.getBundle();
        return b == null ? "unknown bundle" : b.getSymbolicName();
    }

    // ------------------------------------------------------------------------------ plain Java wiring

    /** Makes a CPU model available under its {@code cpu.type}, provided by bundle {@code bundleName}. */
    public void addModel(PmuModel model, String bundleName) {
        offer(models, model.cpuType(), model, bundleName);
    }

    /** A CPU model departs: the current host, if it uses the model, stops and says why. */
    public void removeModel(PmuModel model) {
        withdraw(models, model, current -> current.uses(model) ? current.modelBundle() : null,
                "CPU model " + model.cpuType());
    }

    /** Makes a counter-virtualization policy available under its {@code vpmu.policy} name. */
    public void addPolicy(CounterVirtualizationPolicy policy, String bundleName) {
        offer(policies, policy.name(), policy, bundleName);
    }

    /** A policy departs: the current host, if it uses the policy, stops and says why. */
    public void removePolicy(CounterVirtualizationPolicy policy) {
        withdraw(policies, policy, current -> current.uses(policy) ? current.policyBundle() : null,
                "counter-virtualization policy " + policy.name());
    }

    /** Makes {@code service} available under {@code name}, its identity property, provided by {@code bundle}. */
    private <T> void offer(Map<String, Provided<T>> installed, String name, T service, String bundle) {
        synchronized (installedLock) {
            installed.put(Objects.requireNonNull(name, "name"), new Provided<>(Objects.requireNonNull(service), bundle));
        }
    }

    /**
     * Takes {@code service} out of {@code installed}; when the current host uses it ({@code usedFrom}
     * gives the bundle the host took it from, else null) the host stops, naming {@code what} and the bundle.
     */
    private <T> void withdraw(Map<String, Provided<T>> installed, T service, Function<SimHost, String> usedFrom,
            String what) {
        SimHost stopped = null;
        String bundle = null;
        synchronized (installedLock) {
            for (Iterator<Provided<T>> i = installed.values().iterator(); i.hasNext();) {
                Provided<T> p = i.next();
                if (p.service == service) {
                    i.remove();
                    bundle = p.bundle;
                }
            }
        }
        synchronized (this) {
            String hostBundle = current == null ? null : usedFrom.apply(current);
            if (hostBundle != null) {
                stopped = current;
                bundle = bundle == null ? hostBundle : bundle;
            }
        }
        if (stopped != null) {
            stopped.stop(what + " (bundle " + bundle + ") departed; the host stopped, samples already taken are kept;"
                    + " reinstall/start the bundle and load the scenario again");
        }
    }

    /**
     * Makes a symbol resolver available to scenarios that give their images {@code format=<format>}
     * (normally {@code format} is {@code resolver.format()}). The resolver is handed each image as
     * an {@code ImageSource} of its own format. One bound already for the format serves until it leaves.
     */
    public void addResolver(String format, SymbolResolver resolver) {
        symbolTables.addResolver(format, resolver);
    }

    /** A symbol resolver departs. Hosts already loaded keep the symbols it read. */
    public void removeResolver(String format, SymbolResolver resolver) {
        symbolTables.removeResolver(format, resolver);
    }

    /** The symbol formats scenarios may use: the built-in text format and each installed resolver's. */
    public List<String> installedSymbolFormats() {
        List<String> out = new ArrayList<>();
        out.add(ScenarioParser.SYMBOL_FORMAT + " (built in)");
        symbolTables.serving().forEach((format, r) -> out.add(format + " (" + r + ")"));
        return out;
    }

    /** The installed CPU models' cpu.type names, each with its bundle. */
    public List<String> installedModels() {
        List<String> out = new ArrayList<>();
        synchronized (installedLock) {
            models.forEach((type, p) -> out.add(type + " (bundle " + p.bundle + ")"));
        }
        return out;
    }

    /** The installed policies' names, each with its bundle. */
    public List<String> installedPolicies() {
        List<String> out = new ArrayList<>();
        synchronized (installedLock) {
            policies.forEach((name, p) -> out.add(name + " (bundle " + p.bundle + ")"));
        }
        return out;
    }

    // ----------------------------------------------------------------------------------- HostService

    @Override
    public List<String> scenarios() {
        List<String> names = new ArrayList<>();
        try (InputStream in = resources().getResourceAsStream(INDEX)) {
            if (in == null) {
                return names;
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    String name = line.strip();
                    if (!name.isEmpty() && !name.startsWith("#")) {
                        names.add(name);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the embedded scenario index " + INDEX + ": " + e.getMessage(),
                    e);
        }
        return names;
    }

    /** The scenario, parsed but not loaded: an embedded one by name, or a file by path. */
    public Scenario parse(String scenario) throws ScenarioException {
        Objects.requireNonNull(scenario, "scenario");
        List<String> embedded = scenarios();
        ScenarioLimits ceilings = root.limits;
        if (embedded.contains(scenario)) {
            int resolvers = symbolTables.generation();
            Parsed known = parsedEmbedded.get(scenario);
            if (known != null && known.resolvers == resolvers && known.ceilings.equals(ceilings)) {
                return known.scenario;
            }
            Scenario parsed = ScenarioParser.parse(ScenarioOrigin.embedded(resources(), SCENARIO_FOLDER,
                    scenario + SCENARIO_SUFFIX), symbolTables, ceilings);
            parsedEmbedded.put(scenario, new Parsed(parsed, resolvers, ceilings));
            return parsed;
        }
        Path path;
        try {
            path = Path.of(scenario);
        } catch (InvalidPathException e) {
            path = null;
        }
        if (path == null || !Files.exists(path)) {
            throw new ScenarioException("'" + scenario + "' is neither an embedded scenario " + embedded
                    + " nor a readable scenario file; give one of those names or the path of a .scenario file");
        }
        // What the path names (a FIFO, a device, a directory) is checked where the file is opened.
        return ScenarioParser.parse(ScenarioOrigin.file(path), symbolTables, ceilings);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The scenario's {@code pmu.option} lines are written for its own {@code cpu.type}: a
     * {@code cpuTypeOverride} naming another model gets none of them (the model would refuse
     * options of another part); see {@link #load(String, String, Map, Map)} to give it its own.
     */
    @Override
    public Host load(String scenario, String cpuTypeOverride) throws ScenarioException {
        return load(scenario, cpuTypeOverride, null, null);
    }

    /**
     * Loads a scenario as {@link #load(String, String)} does, with load-time options.
     *
     * @param hostOptions host options ({@code ppc.postponed=owner}, ...) merged over the scenario's
     *                    {@code host.option} lines, or null
     * @param pmuOptions  options for the CPU model instead of the scenario's {@code pmu.option}
     *                    lines ({@code mmcra.hvpr=xnu}, ...), or null to keep the scenario's (none
     *                    when the cpu.type is overridden with another model)
     * @throws ScenarioException as {@link #load(String, String)}, and for an unknown host option or
     *                           value, or PMU options the model refuses
     */
    @Override
    public Host load(String scenario, String cpuTypeOverride, Map<String, String> hostOptions,
            Map<String, String> pmuOptions) throws ScenarioException {
        Scenario parsed = parse(scenario);
        String cpuType = cpuTypeOverride == null || cpuTypeOverride.isBlank() ? parsed.cpuType()
                : cpuTypeOverride.strip();
        Map<String, String> pmu = pmuOptions;
        if (pmu == null && !cpuType.equals(parsed.cpuType())) {
            pmu = Map.of(); // the scenario's options belong to its own model
        }
        try {
            parsed = parsed.withOptions(hostOptions, pmu);
        } catch (IllegalArgumentException e) {
            throw new ScenarioException("loading " + parsed.name() + ": " + e.getMessage(), e);
        }
        Provided<PmuModel> model;
        Provided<CounterVirtualizationPolicy> policy;
        synchronized (installedLock) {
            model = models.get(cpuType);
            policy = policies.get(parsed.effectivePolicy());
        }
        if (model == null) {
            String where = cpuType.equals(parsed.cpuType()) ? parsed.where("cpu.type") + ": " : "";
            throw new ScenarioException(where + "CPU model '" + cpuType + "' is not installed; installed: "
                    + (installedModels().isEmpty() ? "none" : String.join(", ", installedModels()))
                    + ". Install and start the model's bundle, or load with a cpu.type override");
        }
        if (policy == null) {
            throw new ScenarioException(parsed.where("vpmu.policy") + ": counter-virtualization policy '"
                    + parsed.effectivePolicy() + "' is not installed; installed: "
                    + (installedPolicies().isEmpty() ? "none" : String.join(", ", installedPolicies()))
                    + ". Install and start the policy's bundle, or change vpmu.policy");
        }
        SimHost host = new SimHost(parsed, model.service, model.bundle, policy.service, policy.bundle);
        SimHost previous;
        synchronized (this) {
            previous = current;
            current = host;
        }
        if (previous != null) {
            previous.stop("host " + previous.name() + " was replaced by a newly loaded " + host.name()
                    + "; samples already taken are kept");
        }
        return host;
    }

    @Override
    public synchronized Optional<Host> current() {
        return Optional.ofNullable(current);
    }

    private static ClassLoader resources() {
        return HostServiceImpl.class.getClassLoader();
    }

    private record Provided<T>(T service, String bundle) {
    }

    /** A parsed embedded scenario, with the resolver generation and the ceilings it was parsed under. */
    private record Parsed(Scenario scenario, int resolvers, ScenarioLimits ceilings) {
    }
}

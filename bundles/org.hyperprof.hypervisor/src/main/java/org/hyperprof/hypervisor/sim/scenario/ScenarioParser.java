package org.hyperprof.hypervisor.sim.scenario;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.pipeline.SymbolTables;

/**
 * Reads the line-oriented scenario format. The format is documented in the header of the embedded
 * default scenario ({@code org/hyperprof/hypervisor/scenarios/xen-summit-2006-network.scenario}):
 * one statement per line, a keyword and blank-separated arguments, {@code #} comments; host
 * statements first, then each domain followed by its images and its workload regions, each region
 * followed by its symbols. Every error names {@code file:line}, what was found and what was expected.
 *
 * <p>The parser keeps the statements' order, the host statements and the finished {@link Scenario};
 * {@link ScenarioTokens} reads the pieces of a line, {@link ImageReader} the images and their
 * symbols, {@link RateProfiles} the rate profiles and {@link DomainSection} the domains.
 */
public final class ScenarioParser {

    /** Longest caller chain a symbol may name (return addresses kept per sample). */
    public static final int MAX_CALLERS = 15;

    /**
     * The built-in symbol-file format, and the default of an image's {@code format=}: System.map /
     * nm / kallsyms text, read by {@link SymbolFile} itself. Other formats are read by the
     * {@link SymbolResolver} installed for them.
     */
    public static final String SYMBOL_FORMAT = "kallsyms";

    private static final List<String> HOST_KEYWORDS = List.of("scenario", "description", "cpu.type", "cpu.mhz",
            "cpu.count", "seed", "pmu.option", "vpmu.policy", "pv.kernel.cpl", "sched.timeslice.us",
            "sched.accounting.us", "sim.quantum.us", "slice.cycles", "rates", "cost.rates", "cost.switch",
            "cost.nmi", "cost.idle", "cost.halt", "xen.frame-pointers", "host.option", "ee.off", "poll.points",
            "cost.vpmu", "cost.trap.hvm", "cost.trap.pv", "hypervisor");
    /** Host statements that may be given more than once. */
    private static final Set<String> REPEATABLE = Set.of("pmu.option", "rates", "host.option", "ee.off",
            "poll.points", "cost.vpmu");
    private static final List<String> DOMAIN_KEYWORDS = List.of("domain", "kernel", "module", "process", "region",
            "symbol", "profiler", "callsite");

    /** Byte-order mark: some editors begin UTF-8 files with it; it is no part of the first statement. */
    private static final char BYTE_ORDER_MARK = '\uFEFF';

    private final String location;
    private final ScenarioTokens tokens;
    private final ImageReader images;
    private final RateProfiles profiles;

    // Host statements.
    private String name;
    private String description = "";
    private String cpuType;
    private long mhz;
    private int pcpus;
    private long seed = 1;
    private final Map<String, String> pmuOptions = new LinkedHashMap<>();
    private String policy = "systemwide";
    private int pvKernelCpl = -1;
    private long timesliceMicros = 30_000;
    private long accountingMicros = 30_000;
    private long quantumMicros = 20;
    private long sliceMin = 2_000;
    private long sliceMax = 8_000;
    private long[] hypervisorRates = ScenarioTokens.defaultRates();
    private PendingCost contextSwitch;
    private PendingCost nmiHandler;
    private PendingCost idleLoop;
    private PendingCost halt;
    private final Map<String, Long> vpmuCosts = new LinkedHashMap<>();
    private PendingCost trapHvm;
    private PendingCost trapPv;
    private ImageSpec hypervisor;
    private boolean xenFramePointers;
    private final Map<String, String> hostOptions = new LinkedHashMap<>();
    /** {@code ee.off} and {@code poll.points} function names, each with its line; resolved at the end. */
    private final Map<String, Integer> interruptsOff = new LinkedHashMap<>();
    private final Map<String, Integer> pollPoints = new LinkedHashMap<>();
    private final Map<String, Integer> lines = new HashMap<>();
    /** Cycles of hypervisor or handler work per event, each checked against one time slice at the end. */
    private final List<WorkPerEvent> workPerEvent = new ArrayList<>();

    /** The domain section, from its first statement on (host statements come before it). */
    private DomainSection domainSection;

    private ScenarioParser(ScenarioOrigin origin, SymbolTables symbolTables, ScenarioLimits limits) {
        this.location = origin.location();
        this.tokens = new ScenarioTokens(location);
        this.images = new ImageReader(origin, limits, symbolTables, tokens);
        this.profiles = new RateProfiles(tokens);
    }

    /**
     * Parses a scenario whose images all use the built-in symbol format.
     *
     * @throws ScenarioException naming {@code file:line}, what was found and what was expected
     */
    public static Scenario parse(ScenarioOrigin origin) throws ScenarioException {
        return parse(origin, Map.of());
    }

    /**
     * Parses a scenario and the symbol files it names. An image with {@code format=<name>} other
     * than {@value #SYMBOL_FORMAT} is read by {@code resolvers.get(name)}, which is handed the
     * image as an {@link ImageSource} of the resolver's own {@link SymbolResolver#format()}.
     *
     * @param resolvers symbol resolvers by the format name scenarios give ({@code elf}, ...)
     * @throws ScenarioException naming {@code file:line}, what was found and what was expected; for
     *                           a format without resolver, the format and the installed ones
     */
    public static Scenario parse(ScenarioOrigin origin, Map<String, SymbolResolver> resolvers)
            throws ScenarioException {
        return parse(origin, resolvers, ScenarioLimits.DEFAULT);
    }

    /**
     * Parses a scenario and the symbol files it names, reading at most {@code limits} of the scenario
     * and of each System.map.
     *
     * @throws ScenarioException as {@link #parse(ScenarioOrigin, Map)}; for a scenario path that
     *                           names no regular file, or a file beyond its ceiling, saying so
     */
    public static Scenario parse(ScenarioOrigin origin, Map<String, SymbolResolver> resolvers, ScenarioLimits limits)
            throws ScenarioException {
        SymbolTables installed = new SymbolTables();
        resolvers.forEach(installed::addResolver);
        return parse(origin, installed, limits);
    }

    /**
     * As {@link #parse(ScenarioOrigin, Map, ScenarioLimits)}, with the resolvers and the cached
     * tables of the pipeline's symbol tables: an image with {@code format=<name>} is read by the
     * resolver serving that name.
     */
    public static Scenario parse(ScenarioOrigin origin, SymbolTables symbolTables, ScenarioLimits limits)
            throws ScenarioException {
        List<String> text;
        try (InputStream in = limits.scenario().bound(origin.open(), origin.location());
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            text = reader.lines().toList();
        } catch (java.io.UncheckedIOException e) {
            throw unreadable(origin, e.getCause());
        } catch (IOException e) {
            throw unreadable(origin, e);
        }
        return new ScenarioParser(origin, symbolTables, limits).parse(text);
    }

    private static ScenarioException unreadable(ScenarioOrigin origin, IOException e) {
        if (e instanceof InputFileException) {
            return new ScenarioException(e.getMessage(), e); // names the scenario, what is wrong and what to do
        }
        return new ScenarioException("cannot read scenario " + origin.location() + ": " + e.getMessage(), e);
    }

    private Scenario parse(List<String> text) throws ScenarioException {
        int lineNo = 0;
        for (String raw : text) {
            lineNo++;
            if (lineNo == 1 && !raw.isEmpty() && raw.charAt(0) == BYTE_ORDER_MARK) {
                raw = raw.substring(1);
            }
            int hash = raw.indexOf('#');
            String content = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (content.isEmpty()) {
                continue;
            }
            String[] tokens = content.split("\\s+");
            statement(tokens, content, lineNo);
        }
        if (domainSection != null) {
            domainSection.finishDomain(lineNo + 1);
        }
        return build(lineNo + 1);
    }

    private void statement(String[] t, String content, int line) throws ScenarioException {
        String keyword = t[0];
        if (name == null && !keyword.equals("scenario")) {
            throw tokens.error(line, "the file must begin with 'scenario <name>'; found '" + keyword + "'");
        }
        if (HOST_KEYWORDS.contains(keyword)) {
            if (domainSection != null) {
                throw tokens.error(line, "'" + keyword + "' is a host statement; host statements come before the first"
                        + " 'domain'");
            }
            if (!REPEATABLE.contains(keyword) && lines.containsKey(keyword)) {
                throw tokens.error(line, "'" + keyword + "' is given twice (first on line " + lines.get(keyword) + ")");
            }
            lines.putIfAbsent(keyword, line);
            host(keyword, t, content, line);
        } else if (DOMAIN_KEYWORDS.contains(keyword)) {
            if (domainSection == null) {
                domainSection = new DomainSection(tokens, images, profiles, hypervisor, interruptsOff.keySet(),
                        workPerEvent);
            }
            domainSection.statement(keyword, t, line);
        } else {
            throw tokens.error(line, "unknown statement '" + keyword + "'; expected one of "
                    + String.join(", ", HOST_KEYWORDS)
                    + " (host) or " + String.join(", ", DOMAIN_KEYWORDS) + " (domains)");
        }
    }

    // ---------------------------------------------------------------------------------------- host

    private void host(String keyword, String[] t, String content, int line) throws ScenarioException {
        switch (keyword) {
            case "scenario" -> {
                tokens.arity(t, 2, line, "scenario <name>");
                name = t[1];
            }
            case "description" -> {
                if (t.length < 2) {
                    throw tokens.error(line, "expected 'description <one line of text>'");
                }
                description = content.substring("description".length()).strip();
            }
            case "cpu.type" -> {
                tokens.arity(t, 2, line, "cpu.type <OProfile cpu_type, e.g. i386/p6>");
                cpuType = t[1];
            }
            case "cpu.mhz" -> {
                tokens.arity(t, 2, line, "cpu.mhz <clock in MHz>");
                mhz = tokens.number(t[1], line, "cpu.mhz", 1, 1_000_000);
            }
            case "cpu.count" -> {
                tokens.arity(t, 2, line, "cpu.count <number of physical CPUs>");
                pcpus = (int) tokens.number(t[1], line, "cpu.count", 1, 4096);
            }
            case "seed" -> {
                tokens.arity(t, 2, line, "seed <integer>");
                seed = tokens.number(t[1], line, "seed", Long.MIN_VALUE, Long.MAX_VALUE);
            }
            case "pmu.option" -> {
                tokens.arity(t, 2, line, "pmu.option <key>=<value>, e.g. pmu.option lvtpc.automask=true");
                String[] kv = tokens.keyValue(t[1], line, "pmu.option <key>=<value>");
                if (pmuOptions.containsKey(kv[0])) {
                    throw tokens.error(line, "pmu.option " + kv[0] + " is given twice");
                }
                pmuOptions.put(kv[0], kv[1]);
            }
            case "vpmu.policy" -> {
                tokens.arity(t, 2, line, "vpmu.policy <policy name, e.g. systemwide>");
                policy = t[1];
            }
            case "pv.kernel.cpl" -> {
                tokens.arity(t, 2, line, "pv.kernel.cpl <0-3>");
                pvKernelCpl = (int) tokens.number(t[1], line, "pv.kernel.cpl", 0, 3);
            }
            case "sched.timeslice.us" -> {
                tokens.arity(t, 2, line, "sched.timeslice.us <microseconds>");
                timesliceMicros = tokens.number(t[1], line, keyword, 1, 10_000_000);
            }
            case "sched.accounting.us" -> {
                tokens.arity(t, 2, line, "sched.accounting.us <microseconds>");
                accountingMicros = tokens.number(t[1], line, keyword, 1, 10_000_000);
            }
            case "sim.quantum.us" -> {
                tokens.arity(t, 2, line, "sim.quantum.us <microseconds>");
                quantumMicros = tokens.number(t[1], line, keyword, 1, 1_000_000);
            }
            case "slice.cycles" -> {
                tokens.arity(t, 3, line, "slice.cycles <shortest> <longest>");
                sliceMin = tokens.number(t[1], line, "the shortest slice", 1, 1L << 40);
                sliceMax = tokens.number(t[2], line, "the longest slice", sliceMin, 1L << 40);
            }
            case "rates" -> profiles.define(t, line);
            case "cost.rates" -> {
                tokens.arity(t, 2, line, "cost.rates <rate profile>");
                hypervisorRates = profiles.get(t[1], line);
            }
            case "cost.switch" -> contextSwitch = cost(t, line, "cost.switch <cycles> <function>=<weight> ...");
            case "cost.nmi" -> nmiHandler = cost(t, line, "cost.nmi <cycles> <function>=<weight> ...");
            case "cost.idle" -> {
                tokens.arity(t, 3, line, "cost.idle <cycles> <function>");
                idleLoop = new PendingCost(tokens.number(t[1], line, "cost.idle cycles", 0, 1L << 40),
                        List.of(t[2]), List.of(1L), line);
                workPerEvent.add(new WorkPerEvent("cost.idle", idleLoop.cycles, line));
            }
            case "cost.halt" -> {
                tokens.arity(t, 2, line, "cost.halt <function of the hypervisor image where a halted CPU sits>");
                halt = new PendingCost(0, List.of(t[1]), List.of(1L), line);
            }
            case "xen.frame-pointers" -> {
                tokens.arity(t, 2, line, "xen.frame-pointers yes|no");
                try {
                    xenFramePointers = HostOptions.framePointers(t[1]);
                } catch (IllegalArgumentException e) {
                    throw tokens.error(line, e.getMessage());
                }
            }
            case "host.option" -> {
                tokens.arity(t, 2, line, "host.option <key>=<value>, e.g. host.option " + PostponedHandling.OPTION
                        + "=owner");
                String[] kv = tokens.keyValue(t[1], line, "host.option <key>=<value>");
                if (hostOptions.containsKey(kv[0])) {
                    throw tokens.error(line, "host.option " + kv[0] + " is given twice");
                }
                try {
                    HostOptions.check(kv[0], kv[1]);
                } catch (IllegalArgumentException e) {
                    throw tokens.error(line, e.getMessage());
                }
                hostOptions.put(kv[0], kv[1]);
            }
            case "cost.vpmu" -> {
                tokens.arity(t, 3, line, "cost.vpmu <name> <cycles>");
                if (vpmuCosts.containsKey(t[1])) {
                    throw tokens.error(line, "cost.vpmu " + t[1] + " is given twice; give each price once");
                }
                vpmuCosts.put(t[1], tokens.number(t[2], line, "cost.vpmu " + t[1] + " cycles", 0, 1L << 32));
                workPerEvent.add(new WorkPerEvent("cost.vpmu " + t[1], vpmuCosts.get(t[1]), line));
            }
            case "cost.trap.hvm" -> {
                tokens.arity(t, 3, line, "cost.trap.hvm <cycles> <hypervisor function>");
                trapHvm = new PendingCost(tokens.number(t[1], line, "cost.trap.hvm cycles", 0, 1L << 32), List.of(t[2]),
                        List.of(1L), line);
                workPerEvent.add(new WorkPerEvent("cost.trap.hvm", trapHvm.cycles, line));
            }
            case "cost.trap.pv" -> {
                tokens.arity(t, 3, line, "cost.trap.pv <cycles> <hypervisor function>");
                trapPv = new PendingCost(tokens.number(t[1], line, "cost.trap.pv cycles", 0, 1L << 32), List.of(t[2]),
                        List.of(1L), line);
                workPerEvent.add(new WorkPerEvent("cost.trap.pv", trapPv.cycles, line));
            }
            case "ee.off" -> functionList(t, line, interruptsOff, "ee.off <hypervisor function> ...");
            case "poll.points" -> functionList(t, line, pollPoints, "poll.points <hypervisor function> ...");
            case "hypervisor" -> {
                if (t.length < 4) {
                    throw tokens.error(line, "expected 'hypervisor <image> <start>-<end> <symbol file> [bias=<address>]"
                            + " [format=<symbol format>]'");
                }
                hypervisor = images.image(t, ImageKind.HYPERVISOR, line, "hypervisor");
            }
            default -> throw new IllegalStateException(keyword);
        }
    }

    private void functionList(String[] t, int line, Map<String, Integer> into, String expected)
            throws ScenarioException {
        if (t.length < 2) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        for (int i = 1; i < t.length; i++) {
            Integer first = into.putIfAbsent(t[i], line);
            if (first != null) {
                throw tokens.error(line, t[0] + " names '" + t[i] + "' twice (first on line " + first + ")");
            }
        }
    }

    private PendingCost cost(String[] t, int line, String expected) throws ScenarioException {
        if (t.length < 2) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        long cycles = tokens.number(t[1], line, t[0] + " cycles", 0, 1L << 40);
        workPerEvent.add(new WorkPerEvent(t[0], cycles, line));
        if (cycles > 0 && t.length < 3) {
            throw tokens.error(line, t[0] + " of " + cycles + " cycles names no function; expected '" + expected + "'");
        }
        List<String> names = new ArrayList<>();
        List<Long> weights = new ArrayList<>();
        for (int i = 2; i < t.length; i++) {
            String[] kv = tokens.keyValue(t[i], line, expected);
            names.add(kv[0]);
            weights.add(tokens.weight(kv[1], line, "weight of " + kv[0]));
        }
        return new PendingCost(cycles, names, weights, line);
    }

    // ------------------------------------------------------------------------------------ finishing

    private Scenario build(int endLine) throws ScenarioException {
        List<DomainSpec> domains = domainSection == null ? List.of() : domainSection.domains();
        if (name == null) {
            throw new ScenarioException(location + ": the file is empty; expected 'scenario <name>' first");
        }
        String missing = cpuType == null ? "cpu.type <cpu_type>" : mhz == 0 ? "cpu.mhz <MHz>"
                : pcpus == 0 ? "cpu.count <pCPUs>" : hypervisor == null ? "hypervisor <image> <start>-<end> <file>"
                : halt == null ? "cost.halt <function>" : domains.isEmpty() ? "domain <domid> <name> ..." : null;
        if (missing != null) {
            throw new ScenarioException(location + ":" + endLine + ": the scenario ends without '" + missing + "'");
        }
        // A price per event beyond one time slice leaves the guests no time to run: every sample would
        // fall in the hypervisor's work for the idle vCPU, which Xen drops.
        long slice = timesliceMicros * mhz;
        for (WorkPerEvent w : workPerEvent) {
            if (w.cycles > slice) {
                throw tokens.error(w.line, w.what + " " + w.cycles + " cycles is out of range; expected 0 to " + slice
                        + ", one time slice (sched.timeslice.us " + timesliceMicros + " at cpu.mhz " + mhz + "):"
                        + " work that takes longer than a time slice at each event leaves the guests no time to run");
            }
        }
        HypervisorCost sw = resolve(contextSwitch);
        HypervisorCost nmi = resolve(nmiHandler);
        HypervisorCost idle = resolve(idleLoop);
        SymbolRef haltFn = images.function(hypervisor, halt.names.get(0), halt.line);
        List<SymbolRef> off = new ArrayList<>();
        for (Map.Entry<String, Integer> e : interruptsOff.entrySet()) {
            off.add(images.function(hypervisor, e.getKey(), e.getValue()));
        }
        List<SymbolRef> polls = new ArrayList<>();
        for (Map.Entry<String, Integer> e : pollPoints.entrySet()) {
            polls.add(images.function(hypervisor, e.getKey(), e.getValue()));
        }
        return new Scenario(name, description, location, cpuType, mhz, pcpus, seed, pmuOptions, policy, pvKernelCpl,
                timesliceMicros, accountingMicros, quantumMicros, sliceMin, sliceMax, hypervisorRates, sw, nmi, idle,
                haltFn, hypervisor, domains, lines, xenFramePointers, hostOptions, off, polls,
                new VirtualPmuSpec(vpmuCosts, trap(trapHvm), trap(trapPv)));
    }

    private VirtualPmuSpec.Trap trap(PendingCost cost) throws ScenarioException {
        return cost == null ? null
                : new VirtualPmuSpec.Trap(cost.cycles, images.function(hypervisor, cost.names.get(0), cost.line));
    }

    private HypervisorCost resolve(PendingCost cost) throws ScenarioException {
        if (cost == null || cost.cycles == 0) {
            return HypervisorCost.NONE;
        }
        List<WeightedSymbol> fns = new ArrayList<>();
        for (int i = 0; i < cost.names.size(); i++) {
            fns.add(new WeightedSymbol(images.function(hypervisor, cost.names.get(i), cost.line), cost.weights.get(i),
                    List.of(), hypervisorRates, cost.line));
        }
        return new HypervisorCost(cost.cycles, fns);
    }

    private record PendingCost(long cycles, List<String> names, List<Long> weights, int line) {
    }

    /** Work of {@code cycles} done at each event of some kind (a vCPU switch, an NMI, a trap). */
    record WorkPerEvent(String what, long cycles, int line) {
    }
}

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
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.input.InputFileException;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolResolver;

/**
 * Reads the line-oriented scenario format. The format is documented in the header of the embedded
 * default scenario ({@code org/hyperprof/hypervisor/scenarios/xen-summit-2006-network.scenario}):
 * one statement per line, a keyword and blank-separated arguments, {@code #} comments; host
 * statements first, then each domain followed by its images and its workload regions, each region
 * followed by its symbols. Every error names {@code file:line}, what was found and what was expected.
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
            "symbol", "profiler");
    /** Slots of a guest profiler's per-vCPU buffer unless the scenario says otherwise. */
    private static final int DEFAULT_GUEST_BUFFER = 4096;
    /**
     * Slots of all guest profilers' buffers together (10 bytes each): a few lines could otherwise ask
     * for gigabytes (128 vCPUs of many domains with a million slots each).
     */
    static final long MAX_GUEST_BUFFER_SLOTS = 1L << 24;

    /** Byte-order mark: some editors begin UTF-8 files with it; it is no part of the first statement. */
    private static final char BYTE_ORDER_MARK = '\uFEFF';

    private final String location;
    private final ScenarioTokens tokens;
    private final ImageReader images;

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
    private final Map<String, long[]> profiles = new HashMap<>();
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
    private long guestBufferSlots;

    // Domains under construction.
    private final List<DomainSpec> domains = new ArrayList<>();
    private DomainBuilder domain;
    private RegionBuilder region;

    private ScenarioParser(ScenarioOrigin origin, Map<String, SymbolResolver> resolvers, ScenarioLimits limits) {
        this.location = origin.location();
        this.tokens = new ScenarioTokens(location);
        this.images = new ImageReader(origin, limits, resolvers, tokens);
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
        Map<String, SymbolResolver> installed = Map.copyOf(resolvers);
        List<String> text;
        try (InputStream in = limits.scenario().bound(origin.open(), origin.location());
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            text = reader.lines().toList();
        } catch (java.io.UncheckedIOException e) {
            throw unreadable(origin, e.getCause());
        } catch (IOException e) {
            throw unreadable(origin, e);
        }
        return new ScenarioParser(origin, installed, limits).parse(text);
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
        finishDomain(lineNo + 1);
        return build(lineNo + 1);
    }

    private void statement(String[] t, String content, int line) throws ScenarioException {
        String keyword = t[0];
        if (name == null && !keyword.equals("scenario")) {
            throw tokens.error(line, "the file must begin with 'scenario <name>'; found '" + keyword + "'");
        }
        if (HOST_KEYWORDS.contains(keyword)) {
            if (domain != null || !domains.isEmpty()) {
                throw tokens.error(line, "'" + keyword + "' is a host statement; host statements come before the first"
                        + " 'domain'");
            }
            if (!REPEATABLE.contains(keyword) && lines.containsKey(keyword)) {
                throw tokens.error(line, "'" + keyword + "' is given twice (first on line " + lines.get(keyword) + ")");
            }
            lines.putIfAbsent(keyword, line);
            host(keyword, t, content, line);
        } else if (DOMAIN_KEYWORDS.contains(keyword)) {
            domainStatement(keyword, t, line);
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
            case "rates" -> {
                if (t.length < 3) {
                    throw tokens.error(line, "expected 'rates <profile> <SIGNAL>=<events per 1000 cycles> ...'");
                }
                if (profiles.containsKey(t[1])) {
                    throw tokens.error(line, "rate profile '" + t[1] + "' is defined twice");
                }
                long[] rates = ScenarioTokens.defaultRates();
                for (int i = 2; i < t.length; i++) {
                    tokens.rate(t[i], rates, line);
                }
                profiles.put(t[1], rates);
            }
            case "cost.rates" -> {
                tokens.arity(t, 2, line, "cost.rates <rate profile>");
                hypervisorRates = profile(t[1], line);
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
                if (!t[1].equals("yes") && !t[1].equals("no")) {
                    throw tokens.error(line, "xen.frame-pointers " + t[1] + " is neither yes nor no (whether the"
                            + " hypervisor was built with frame pointers; release builds: no)");
                }
                xenFramePointers = t[1].equals("yes");
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

    // ------------------------------------------------------------------------------------- domains

    private void domainStatement(String keyword, String[] t, int line) throws ScenarioException {
        if (keyword.equals("domain")) {
            finishDomain(line);
            startDomain(t, line);
            return;
        }
        if (domain == null) {
            throw tokens.error(line, "'" + keyword + "' belongs to a domain; expected 'domain <domid> <name>"
                    + " ...' before it");
        }
        switch (keyword) {
            case "kernel" -> {
                if (domain.kernelSeen) {
                    throw tokens.error(line, "domain " + domain.domid + " has a second kernel; a domain runs one kernel"
                            + " (load further code as 'module' or 'process')");
                }
                if (!domain.images.isEmpty()) {
                    throw tokens.error(line, "the kernel must be the domain's first image (before modules and"
                            + " processes)");
                }
                domain.kernelSeen = true;
                addImage(images.image(t, ImageKind.KERNEL, line, "kernel"), line);
            }
            case "module" -> addImage(images.image(t, ImageKind.MODULE, line, "module"), line);
            case "process" -> addImage(images.image(t, ImageKind.USER, line, "process"), line);
            case "region" -> {
                finishRegion(line);
                region = startRegion(t, line);
            }
            case "profiler" -> {
                finishRegion(line);
                profilerStatement(t, line);
            }
            case "symbol" -> {
                if (region == null) {
                    throw tokens.error(line, "'symbol' belongs to a region; expected 'region <name> <mode>"
                            + " <image> weight=<w>'"
                            + " before it");
                }
                region.symbols.add(symbol(t, line));
            }
            default -> throw new IllegalStateException(keyword);
        }
    }

    /** {@code profiler <event spec> handler=<kernel function> [handler.cycles=<n>] [buffer=<slots>]}. */
    private void profilerStatement(String[] t, int line) throws ScenarioException {
        String expected = "profiler <EVENT:count[:unitmask[:kernel[:user]]]> handler=<kernel function>"
                + " [handler.cycles=<n>] [buffer=<slots>] [counter=<n>]";
        if (domain.profilerLine > 0) {
            throw tokens.error(line, "domain " + domain.domid + " already runs a profiler (line " + domain.profilerLine
                    + "); a guest runs one");
        }
        if (t.length < 3) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        try {
            org.hyperprof.api.pmu.EventSpec.parse(t[1]);
        } catch (org.hyperprof.api.pmu.EventSpecException e) {
            throw tokens.error(line, e.getMessage());
        }
        domain.profilerEvent = t[1];
        domain.profilerLine = line;
        domain.profilerHandlerCycles = 1500;
        domain.profilerBuffer = DEFAULT_GUEST_BUFFER;
        domain.profilerCounter = -1;
        for (int i = 2; i < t.length; i++) {
            String[] kv = tokens.keyValue(t[i], line, expected);
            switch (kv[0]) {
                case "handler" -> domain.profilerHandler = kv[1];
                case "handler.cycles" -> domain.profilerHandlerCycles = tokens.number(kv[1], line, "handler.cycles", 1,
                        1L << 32);
                case "buffer" -> domain.profilerBuffer = (int) tokens.number(kv[1], line, "buffer slots", 2, 1 << 20);
                case "counter" -> domain.profilerCounter = (int) tokens.number(kv[1], line, "counter", 0, 31);
                default -> throw tokens.error(line, "unknown profiler setting '" + kv[0] + "'; expected '"
                        + expected + "'");
            }
        }
        if (domain.profilerHandler == null) {
            throw tokens.error(line, "the profiler names no handler; expected '" + expected + "'");
        }
        workPerEvent.add(new WorkPerEvent("the profiler's handler.cycles", domain.profilerHandlerCycles, line));
    }

    private void startDomain(String[] t, int line) throws ScenarioException {
        String expected = "domain <domid> <name> type=pv|hvm vcpus=<n> load=<fraction 0-1> [burst.us=<n>]"
                + " [hardware=yes|no]";
        if (t.length < 3) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        if (hypervisor == null) {
            throw tokens.error(line, "domains run on a hypervisor; expected 'hypervisor <image>"
                    + " <start>-<end> <symbol file>' before the first domain");
        }
        int domid = (int) tokens.number(t[1], line, "domid", 0, 0x7FEF);
        for (DomainSpec d : domains) {
            if (d.domid() == domid) {
                throw tokens.error(line, "domain " + domid + " is declared twice (first on line " + d.line() + ")");
            }
            if (d.name().equals(t[2])) {
                throw tokens.error(line, "domain name '" + t[2] + "' is used twice (first on line " + d.line() + ")");
            }
        }
        Map<String, String> attrs = tokens.attributes(t, 3, line, expected,
                Set.of("type", "vcpus", "load", "burst.us", "hardware"));
        DomainBuilder d = new DomainBuilder();
        d.domid = domid;
        d.name = t[2];
        d.line = line;
        String type = tokens.required(attrs, "type", line, expected);
        if (!type.equals("pv") && !type.equals("hvm")) {
            throw tokens.error(line, "type=" + type + " is neither pv nor hvm");
        }
        d.hvm = type.equals("hvm");
        d.vcpus = (int) tokens.number(tokens.required(attrs, "vcpus", line, expected), line, "vcpus", 1, 128);
        d.loadPpm = tokens.fraction(tokens.required(attrs, "load", line, expected), line);
        d.burstMicros = attrs.containsKey("burst.us")
                ? tokens.number(attrs.get("burst.us"), line, "burst.us", 1, 10_000_000)
                : 1_000;
        String hw = attrs.getOrDefault("hardware", "no");
        if (!hw.equals("yes") && !hw.equals("no")) {
            throw tokens.error(line, "hardware=" + hw + " is neither yes nor no");
        }
        d.hardware = hw.equals("yes");
        if (d.hardware) {
            for (DomainSpec other : domains) {
                if (other.hardwareDomain()) {
                    throw tokens.error(line, "domain " + other.domid() + " (line " + other.line() + ") is already the"
                            + " hardware domain; a host has one");
                }
            }
        }
        domain = d;
    }

    private void addImage(ImageSpec image, int line) throws ScenarioException {
        if (!domain.kernelSeen) {
            throw tokens.error(line, "the domain's first image must be its 'kernel'");
        }
        for (ImageSpec other : domain.images) {
            if (other.name().equals(image.name())) {
                throw tokens.error(line, "image '" + image.name() + "' is loaded twice in domain " + domain.domid
                        + " (first on line " + other.line() + ")");
            }
            if (other.overlaps(image)) {
                throw tokens.error(line, "image '" + image.name() + "' overlaps '" + other.name() + "' (line "
                        + other.line() + ") in domain " + domain.domid + "; each address belongs to one image");
            }
        }
        if (hypervisor.overlaps(image)) {
            throw tokens.error(line, "image '" + image.name() + "' overlaps the hypervisor image '" + hypervisor.name()
                    + "', which every domain maps at the same place");
        }
        domain.images.add(image);
    }

    private RegionBuilder startRegion(String[] t, int line) throws ScenarioException {
        String expected = "region <name> <user|kernel|hypervisor> <image> weight=<w> [rates=<profile>] [ee=0|1]"
                + " [<SIGNAL>=<rate> ...]";
        if (t.length < 5) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        CpuMode mode = switch (t[2]) {
            case "user" -> CpuMode.USER;
            case "kernel" -> CpuMode.KERNEL;
            case "hypervisor" -> CpuMode.HYPERVISOR;
            default -> throw tokens.error(line, "mode '" + t[2] + "' is not one of user, kernel, hypervisor");
        };
        ImageSpec image = findImage(t[3], line);
        boolean fits = switch (mode) {
            case USER -> image.kind() == ImageKind.USER;
            case KERNEL -> image.kind() == ImageKind.KERNEL || image.kind() == ImageKind.MODULE;
            case HYPERVISOR -> image.kind() == ImageKind.HYPERVISOR;
        };
        if (!fits) {
            throw tokens.error(line, "image '" + image.name() + "' is a " + image.kind().name().toLowerCase(Locale.ROOT)
                    + " image; " + t[2] + " code runs in " + switch (mode) {
                        case USER -> "a process image";
                        case KERNEL -> "the kernel or a module";
                        case HYPERVISOR -> "the hypervisor image";
                    });
        }
        RegionBuilder r = new RegionBuilder();
        r.name = t[1];
        r.mode = mode;
        r.image = image;
        r.line = line;
        r.rates = ScenarioTokens.defaultRates();
        boolean weightSeen = false;
        // The profile first, so that the region's own SIGNAL=rate attributes override it wherever they stand.
        for (int i = 4; i < t.length; i++) {
            String[] kv = tokens.keyValue(t[i], line, expected);
            if (kv[0].equals("rates")) {
                r.rates = profile(kv[1], line);
            }
        }
        for (int i = 4; i < t.length; i++) {
            String[] kv = tokens.keyValue(t[i], line, expected);
            switch (kv[0]) {
                case "weight" -> {
                    r.weight = tokens.weight(kv[1], line, "region weight");
                    weightSeen = true;
                }
                case "rates" -> {
                    // applied above
                }
                case "ee" -> r.interruptsEnabled = tokens.eeFlag(kv[1], line);
                default -> tokens.rate(t[i], r.rates, line);
            }
        }
        if (!weightSeen) {
            throw tokens.error(line, "region '" + r.name + "' has no weight; expected '" + expected + "'");
        }
        return r;
    }

    private WeightedSymbol symbol(String[] t, int line) throws ScenarioException {
        String expected = "symbol <function>[<caller<caller...] <weight> [ee=0|1] [<SIGNAL>=<rate> ...]";
        if (t.length < 3) {
            throw tokens.error(line, "expected '" + expected + "'");
        }
        String[] chain = t[1].split("<", -1);
        SymbolRef fn = images.function(region.image, chain[0], line);
        List<SymbolRef> callers = new ArrayList<>();
        if (chain.length - 1 > MAX_CALLERS) {
            throw tokens.error(line, "the caller chain has " + (chain.length - 1) + " callers; at most " + MAX_CALLERS
                    + " are kept");
        }
        for (int i = 1; i < chain.length; i++) {
            String c = chain[i];
            int colon = c.indexOf(':');
            ImageSpec image = region.image;
            if (colon >= 0) {
                image = findImage(c.substring(0, colon), line);
                c = c.substring(colon + 1);
            }
            if (!sameStack(region.mode, image.kind())) {
                throw tokens.error(line, "caller '" + chain[i] + "' of " + region.mode.name().toLowerCase(Locale.ROOT)
                        + " code '" + chain[0] + "' is " + stackName(image.kind()) + " code; a call trace stays on"
                        + " the interrupted stack (Xen walks its frame pointers, which end where the stack ends), so"
                        + " the callers of " + region.mode.name().toLowerCase(Locale.ROOT) + " code are "
                        + switch (region.mode) {
                            case USER -> "functions of the domain's processes";
                            case KERNEL -> "functions of its kernel or modules";
                            case HYPERVISOR -> "functions of the hypervisor image";
                        });
            }
            callers.add(images.function(image, c, line));
        }
        long w = tokens.weight(t[2], line, "weight of " + chain[0]);
        long[] rates = region.rates.clone();
        Boolean ee = null;
        for (int i = 3; i < t.length; i++) {
            if (t[i].startsWith("ee=")) {
                ee = tokens.eeFlag(t[i].substring(3), line);
            } else {
                tokens.rate(t[i], rates, line);
            }
        }
        // The symbol's own ee= first, then its region's, then the host's ee.off list of hypervisor functions.
        if (ee == null) {
            ee = region.interruptsEnabled;
        }
        if (ee == null) {
            ee = !(region.image == hypervisor && interruptsOff.containsKey(chain[0]));
        }
        return new WeightedSymbol(fn, w, callers, rates, line, ee);
    }

    /** Whether code of an image of this kind shares the stack of code running in {@code mode}. */
    private static boolean sameStack(CpuMode mode, ImageKind kind) {
        return switch (mode) {
            case USER -> kind == ImageKind.USER;
            case KERNEL -> kind == ImageKind.KERNEL || kind == ImageKind.MODULE;
            case HYPERVISOR -> kind == ImageKind.HYPERVISOR;
        };
    }

    private static String stackName(ImageKind kind) {
        return switch (kind) {
            case HYPERVISOR -> "hypervisor";
            case KERNEL, MODULE -> "kernel";
            case USER, UNKNOWN -> "user";
        };
    }

    private void finishRegion(int line) throws ScenarioException {
        if (region == null) {
            return;
        }
        if (region.symbols.isEmpty()) {
            throw tokens.error(region.line, "region '" + region.name + "' has no symbols; expected"
                    + " 'symbol <function> <weight>'"
                    + " lines after it");
        }
        domain.regions.add(new RegionSpec(region.name, region.mode, region.image, region.weight, region.symbols,
                region.line));
        region = null;
    }

    private void finishDomain(int line) throws ScenarioException {
        if (domain == null) {
            return;
        }
        finishRegion(line);
        if (!domain.kernelSeen) {
            throw tokens.error(domain.line, "domain " + domain.domid + " has no kernel; expected 'kernel <image>"
                    + " <start>-<end> <symbol file>' after the domain line");
        }
        if (domain.loadPpm > 0 && domain.regions.isEmpty()) {
            throw tokens.error(domain.line, "domain " + domain.domid + " is busy (load > 0) but has no workload;"
                    + " expected"
                    + " 'region ...' lines, or load=0");
        }
        GuestProfilerSpec profiler = null;
        if (domain.profilerLine > 0) {
            guestBufferSlots += (long) domain.vcpus * domain.profilerBuffer;
            if (guestBufferSlots > MAX_GUEST_BUFFER_SLOTS) {
                throw tokens.error(domain.profilerLine, "the guest profilers' buffers would hold " + guestBufferSlots
                        + " slots with this one's " + domain.vcpus + " x " + domain.profilerBuffer + " (vCPUs x"
                        + " buffer=); all together they may hold at most " + MAX_GUEST_BUFFER_SLOTS + " (10 bytes"
                        + " each): give smaller buffer= values");
            }
            ImageSpec kernel = domain.images.get(0);
            profiler = new GuestProfilerSpec(domain.profilerEvent,
                    images.function(kernel, domain.profilerHandler, domain.profilerLine), domain.profilerHandlerCycles,
                    domain.profilerBuffer, domain.profilerCounter, domain.profilerLine);
        }
        domains.add(new DomainSpec(domain.domid, domain.name, domain.hvm, domain.vcpus, domain.hardware,
                domain.loadPpm, domain.burstMicros, domain.images, domain.regions, domain.line, profiler));
        domain = null;
    }

    // ------------------------------------------------------------------------------------ finishing

    private Scenario build(int endLine) throws ScenarioException {
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

    // -------------------------------------------------------------------------------------- pieces

    private ImageSpec findImage(String imageName, int line) throws ScenarioException {
        if (hypervisor.name().equals(imageName)) {
            return hypervisor;
        }
        List<String> known = new ArrayList<>();
        known.add(hypervisor.name());
        for (ImageSpec i : domain.images) {
            if (i.name().equals(imageName)) {
                return i;
            }
            known.add(i.name());
        }
        throw tokens.error(line, "image '" + imageName + "' is not loaded in domain " + domain.domid + "; its images"
                + " are "
                + known + " (declare it with kernel, module or process first)");
    }

    private long[] profile(String profileName, int line) throws ScenarioException {
        long[] p = profiles.get(profileName);
        if (p == null) {
            throw tokens.error(line, "rate profile '" + profileName + "' is not defined; defined: " + profiles.keySet()
                    + " (define it with 'rates <profile> <SIGNAL>=<rate> ...' among the host statements)");
        }
        return p.clone();
    }

    private record PendingCost(long cycles, List<String> names, List<Long> weights, int line) {
    }

    /** Work of {@code cycles} done at each event of some kind (a vCPU switch, an NMI, a trap). */
    private record WorkPerEvent(String what, long cycles, int line) {
    }

    private static final class DomainBuilder {
        int domid;
        String name;
        boolean hvm;
        int vcpus;
        boolean hardware;
        long loadPpm;
        long burstMicros;
        int line;
        boolean kernelSeen;
        String profilerEvent;
        String profilerHandler;
        long profilerHandlerCycles;
        int profilerBuffer;
        int profilerLine;
        int profilerCounter;
        final List<ImageSpec> images = new ArrayList<>();
        final List<RegionSpec> regions = new ArrayList<>();
    }

    private static final class RegionBuilder {
        String name;
        CpuMode mode;
        ImageSpec image;
        long weight;
        long[] rates;
        /** The region's ee= attribute, or null when not given. */
        Boolean interruptsEnabled;
        int line;
        final List<WeightedSymbol> symbols = new ArrayList<>();
    }
}

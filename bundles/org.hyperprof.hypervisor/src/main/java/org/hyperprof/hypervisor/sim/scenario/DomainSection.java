package org.hyperprof.hypervisor.sim.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.pmu.CpuMode;
import org.hyperprof.api.sample.ImageKind;

/**
 * The domain section of a scenario: each {@code domain} line followed by its images ({@code kernel},
 * {@code module}, {@code process}), its guest {@code profiler}, and its workload regions, each
 * {@code region} followed by its {@code symbol} lines, and its {@code callsite} lines (which of its
 * functions make which hypercalls). It reads them into {@link DomainSpec}s on top
 * of what the host statements set: the hypervisor image, the rate profiles and the {@code ee.off}
 * functions.
 */
final class DomainSection {
    /** Slots of a guest profiler's per-vCPU buffer unless the scenario says otherwise. */
    private static final int DEFAULT_GUEST_BUFFER = 4096;
    /**
     * Slots of all guest profilers' buffers together (10 bytes each): a few lines could otherwise ask
     * for gigabytes (128 vCPUs of many domains with a million slots each).
     */
    static final long MAX_GUEST_BUFFER_SLOTS = 1L << 24;

    private final ScenarioTokens tokens;
    private final ImageReader images;
    private final RateProfiles profiles;
    /** The hypervisor image every domain maps; null when the host statements named none. */
    private final ImageSpec hypervisor;
    /** The host's {@code ee.off} functions of the hypervisor image. */
    private final Set<String> interruptsOff;
    private final List<ScenarioParser.WorkPerEvent> workPerEvent;

    private final List<DomainSpec> domains = new ArrayList<>();
    private DomainBuilder domain;
    private RegionBuilder region;
    private long guestBufferSlots;

    DomainSection(ScenarioTokens tokens, ImageReader images, RateProfiles profiles, ImageSpec hypervisor,
            Set<String> interruptsOff, List<ScenarioParser.WorkPerEvent> workPerEvent) {
        this.tokens = tokens;
        this.images = images;
        this.profiles = profiles;
        this.hypervisor = hypervisor;
        this.interruptsOff = interruptsOff;
        this.workPerEvent = workPerEvent;
    }

    /** The domains read so far, in the scenario's order. */
    List<DomainSpec> domains() {
        return domains;
    }

    /** A statement of the domain section: {@code keyword} is one of the domain keywords. */
    void statement(String keyword, String[] t, int line) throws ScenarioException {
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
            case "callsite" -> {
                finishRegion(line);
                domain.callSites.add(callSite(t, line));
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
        workPerEvent.add(new ScenarioParser.WorkPerEvent("the profiler's handler.cycles", domain.profilerHandlerCycles,
                line));
    }

    /** {@code callsite <guest function> <hypercall handler> [weight=<w>] source=<file>:<function>}. */
    private CallSite callSite(String[] t, int line) throws ScenarioException {
        String expected = "callsite <guest function> <hypercall handler> [weight=<w>] source=<file>:<function>";
        if (t.length < 4) {
            throw tokens.error(line, "expected '" + expected + "', e.g. 'callsite network_start_xmit"
                    + " do_event_channel_op source=drivers/xen/netfront/netfront.c:network_start_xmit'");
        }
        if (!domain.kernelSeen) {
            throw tokens.error(line, "'callsite' names a function of the domain's kernel; expected its 'kernel' line"
                    + " before it");
        }
        String guest = t[1];
        ImageSpec image = domain.images.get(0);
        int colon = guest.indexOf(':');
        if (colon >= 0) {
            image = findImage(guest.substring(0, colon), line);
            guest = guest.substring(colon + 1);
        }
        if (image.kind() != ImageKind.KERNEL && image.kind() != ImageKind.MODULE) {
            throw tokens.error(line, "'" + t[1] + "' is " + stackName(image.kind()) + " code; hypercalls are made by"
                    + " the guest's kernel or its modules (name a kernel function, or <module>:<function>)");
        }
        SymbolRef fn = images.function(image, guest, line);
        SymbolRef handler = images.function(hypervisor, t[2], line);
        Map<String, String> attrs = tokens.attributes(t, 3, line, expected, Set.of("weight", "source"));
        long weight = attrs.containsKey("weight") ? tokens.weight(attrs.get("weight"), line, "call site weight")
                : 1_000_000;
        String source = tokens.required(attrs, "source", line, expected);
        int sep = source.lastIndexOf(':');
        if (sep <= 0 || sep == source.length() - 1) {
            throw tokens.error(line, "source=" + source + " is not <file>:<function>; say where the guest's source"
                    + " makes the call, e.g. source=drivers/xen/netfront/netfront.c:network_start_xmit");
        }
        for (CallSite other : domain.callSites) {
            if (other.guestFunction().equals(fn) && other.handler().equals(handler)) {
                throw tokens.error(line, "call site " + t[1] + " -> " + t[2] + " is given twice in domain "
                        + domain.domid + " (first on line " + other.line() + ")");
            }
        }
        return new CallSite(fn, handler, weight, source, line);
    }

    /** Every call site's handler must be one the domain's hypervisor work runs under. */
    private void checkCallSites() throws ScenarioException {
        if (domain.callSites.isEmpty()) {
            return;
        }
        HypercallTree tree = HypercallTree.of(domain.regions, hypervisor.symbols().size());
        for (CallSite c : domain.callSites) {
            if (!tree.runsUnder(c.handler().index())) {
                List<String> shown = new ArrayList<>();
                for (int f : tree.functions()) {
                    String name = hypervisor.symbols().name(f);
                    if (name.startsWith("do_")) {
                        shown.add(name);
                    }
                }
                shown.sort(null);
                shown = shown.subList(0, Math.min(12, shown.size()));
                throw tokens.error(c.line(), "no hypervisor work of domain " + domain.domid + " runs in or below '"
                        + c.handler().name() + "' (no caller chain of its hypervisor regions names it), so the call"
                        + " site would get nothing; name a handler its regions show" + (shown.isEmpty() ? ""
                                : ", e.g. one of " + shown));
            }
        }
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
                r.rates = profiles.get(kv[1], line);
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
        if (chain.length - 1 > ScenarioParser.MAX_CALLERS) {
            throw tokens.error(line, "the caller chain has " + (chain.length - 1) + " callers; at most "
                    + ScenarioParser.MAX_CALLERS + " are kept");
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
            ee = !(region.image == hypervisor && interruptsOff.contains(chain[0]));
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
                    + " 'symbol <function> <weight>' lines after it");
        }
        domain.regions.add(new RegionSpec(region.name, region.mode, region.image, region.weight, region.symbols,
                region.line));
        region = null;
    }

    /** Ends the domain being read, if any (at the next {@code domain} line or the end of the file). */
    void finishDomain(int line) throws ScenarioException {
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
                    + " expected 'region ...' lines, or load=0");
        }
        checkCallSites();
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
                domain.loadPpm, domain.burstMicros, domain.images, domain.regions, domain.line, profiler,
                domain.callSites));
        domain = null;
    }

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
                + " are " + known + " (declare it with kernel, module or process first)");
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
        final List<CallSite> callSites = new ArrayList<>();
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

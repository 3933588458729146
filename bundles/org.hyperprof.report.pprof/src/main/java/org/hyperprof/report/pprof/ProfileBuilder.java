package org.hyperprof.report.pprof;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.pmu.CounterConfig;
import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ConsumerAccounting;
import org.hyperprof.api.sample.ImageMapping;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.report.kit.RowFilter;
import org.hyperprof.report.pprof.proto.Function;
import org.hyperprof.report.pprof.proto.Label;
import org.hyperprof.report.pprof.proto.Line;
import org.hyperprof.report.pprof.proto.Location;
import org.hyperprof.report.pprof.proto.Mapping;
import org.hyperprof.report.pprof.proto.Profile;
import org.hyperprof.report.pprof.proto.Sample;
import org.hyperprof.report.pprof.proto.ValueType;

/**
 * Turns a session's {@link SessionStacks.Snapshot} into a pprof {@link Profile} message.
 *
 * <ul>
 * <li>Sample types: per counter, {@code samples/count} (samples taken) and the summed weights of its
 * samples (each sample's period: the events those samples stand for), as {@code events/count} or,
 * for perf's clock events ({@code cpu-clock}, {@code task-clock}, whose period is nanoseconds), as
 * {@code cpu/nanoseconds}. A session with several counters names them {@code samples:EVENT} and
 * {@code events:EVENT} (with {@code #N}, the counter index, when two counters count the same
 * event). The default sample type is the first counter's summed weights, as pprof's own CPU
 * profiles default to time.</li>
 * <li>Period: {@code events/count} or {@code cpu/nanoseconds} as above, and the first counter's
 * sampling period, or, for a recording sampled by frequency (no fixed period), the mean period of
 * its samples.</li>
 * <li>Time and duration: the session's start; its simulated time, or else the span of its samples'
 * times.</li>
 * <li>One {@code Sample} per distinct (domain, vCPU, mode, thread and comm, call stack), labelled
 * {@code domain} (name), {@code domain_id}, {@code vcpu} and {@code mode} ({@code user},
 * {@code kernel} or {@code xen}), and for a source that names threads (a perf.data import) also
 * {@code pid}, {@code tid} and {@code comm} (the thread's name at the sample's time, as perf
 * report's comm); its locations leaf first, then the callers.</li>
 * <li>One {@code Location} per distinct sampled PC (callers' too), at that address, in its mapping;
 * its line names its function where a symbol covers it. In an image the source placed (a perf
 * import's files, kernel and modules) an address no symbol covers stays a bare address, with no
 * line, so that {@code pprof -disasm} and a symbolizing profile server can still tell what it is;
 * in an image placed nowhere (the simulator's, perf's {@code [unknown]}) such PCs share one
 * {@code IMAGE (no symbols)} function per image. One {@code Function} per symbol.</li>
 * <li>Mappings from the session's image mappings ({@link SessionDictionary#mapping}): memory
 * start and limit, file offset, the image's name as file name and its build-id; each distinct
 * (image, start, limit, offset) once however many processes mapped it, and only those with
 * locations. {@code has_functions} is set where a location of the mapping names its function (as
 * pprof's own symbolizer sets it), so pprof symbolizes only mappings whose addresses are all bare.
 * Images placed nowhere get mappings spanning their sampled PCs, one per run of them that no
 * other image's PC or placed mapping of the domain interrupts: no two mappings of a domain
 * overlap but where the source's own mappings do (a process that mapped other code over code
 * it had run).</li>
 * </ul>
 */
final class ProfileBuilder {

    static final String SAMPLES = "samples";
    static final String EVENTS = "events";
    static final String COUNT = "count";
    static final String CPU = "cpu";
    static final String NANOSECONDS = "nanoseconds";
    static final String LABEL_DOMAIN = "domain";
    static final String LABEL_DOMAIN_ID = "domain_id";
    static final String LABEL_VCPU = "vcpu";
    static final String LABEL_MODE = "mode";
    static final String LABEL_PID = "pid";
    static final String LABEL_TID = "tid";
    static final String LABEL_COMM = "comm";
    static final String UNIT_DOMAIN_ID = "domid";
    static final String UNIT_VCPU = "vcpu";
    static final String NO_SYMBOLS = " (no symbols)";
    private static final String[] MODE_NAMES = {"user", "kernel", "xen"};

    private final SessionStacks.Snapshot snapshot;
    private final int domainFilter;
    private final RowFilter filter;
    private final Profile.Builder profile = Profile.newBuilder();
    private final Map<String, Long> strings = new HashMap<>();
    /** The images the profile's locations are in (its mappings), by dictionary id. */
    private boolean[] usedImage;

    private ProfileBuilder(SessionStacks.Snapshot snapshot, int domainFilter, RowFilter filter) {
        this.snapshot = snapshot;
        this.domainFilter = domainFilter;
        this.filter = filter;
        string("");
    }

    /**
     * The profile of the snapshot's session, all domains ({@link ReportRequest#ALL_DOMAINS}) or one.
     *
     * @param strays a line about deliveries the consumer could not attribute to a kept session, or null
     * @throws ReportException for a domain the session neither knows nor has samples of
     */
    static Profile build(SessionStacks.Snapshot snapshot, int domain, RowFilter filter, String strays)
            throws ReportException {
        if (domain != ReportRequest.ALL_DOMAINS) {
            checkDomain(snapshot, domain);
        }
        return new ProfileBuilder(snapshot, domain, filter).build(strays);
    }

    private static void checkDomain(SessionStacks.Snapshot snapshot, int domain) throws ReportException {
        if (snapshot.info().domains().containsKey(domain)) {
            return;
        }
        StackTable stacks = snapshot.stacks();
        for (int s = 0; s < stacks.size(); s++) {
            if (stacks.domain(s) == domain) {
                return;
            }
        }
        throw new ReportException("session " + snapshot.info().sessionId() + " has no domain " + domain
                + "; its domains are " + new java.util.TreeMap<>(snapshot.info().domains())
                + " (ask for one of them, or for all domains)");
    }

    private Profile build(String strays) {
        SessionInfo info = snapshot.info();
        List<CounterConfig> counters = info.counters();
        long[] periods = new long[counters.size()];
        for (int c = 0; c < counters.size(); c++) {
            String[] names = sampleTypeNames(counters, c);
            profile.addSampleType(valueType(names[0], COUNT));
            profile.addSampleType(valueType(names[1], clock(counters.get(c)) ? NANOSECONDS : COUNT));
        }
        CounterConfig first = counters.get(0);
        profile.setPeriodType(clock(first) ? valueType(CPU, NANOSECONDS) : valueType(EVENTS, COUNT));
        profile.setPeriod(first.count() > 0 ? first.count() : meanPeriod());
        profile.setDefaultSampleType(string(sampleTypeNames(counters, 0)[1]));
        profile.setTimeNanos(Math.multiplyExact(snapshot.startedMillis(), 1_000_000L));
        SessionSummary summary = snapshot.summary();
        if (summary != null && info.mhz() > 0 && summary.simulatedCycles() > 0) {
            profile.setDurationNanos(nanos(summary.simulatedCycles(), info.mhz()));
        } else if (snapshot.firstTime() != SampleBatch.UNKNOWN && snapshot.lastTime() > snapshot.firstTime()) {
            profile.setDurationNanos(snapshot.lastTime() - snapshot.firstTime());
        }

        LocationTable locations = snapshot.locations();
        boolean[] usedLocation = new boolean[locations.size()];
        long[] leafSamples = new long[locations.size()];
        addSamples(counters.size(), usedLocation, leafSamples);
        addLocations(usedLocation, leafSamples);
        addComments(strays);
        return profile.build();
    }

    /**
     * By image, whether it is a program: mapped into a process and bearing a name some thread had (a
     * thread is named after the file it executed, cut to the kernel's 15 characters; the name may
     * since have changed with another exec).
     */
    private static boolean[] programs(SessionDictionary dictionary) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (int c = 0; c < dictionary.commCount(); c++) {
            String name = dictionary.commName(c);
            if (name != null && !name.isEmpty()) {
                names.add(name);
            }
        }
        boolean[] program = new boolean[dictionary.imageCount()];
        for (int i = 0; i < dictionary.mappingCount(); i++) {
            ImageMapping m = dictionary.mapping(i);
            if (m.pid() != SampleBatch.UNKNOWN && !program[m.image()]) {
                String file = dictionary.imageName(m.image());
                String base = file.substring(file.lastIndexOf('/') + 1);
                program[m.image()] = names.contains(base) || base.length() > 15 && names.contains(base.substring(0, 15));
            }
        }
        return program;
    }

    /** Whether placed mapping {@code m} is a better main binary than {@code than}: a program's before others, then more samples. */
    private static boolean better(boolean[] program, SessionMappings placed, long[] samples, int m, int than) {
        boolean p = program[placed.mapping(m).image()];
        boolean thanP = program[placed.mapping(than).image()];
        return p != thanP ? p : samples[m] > samples[than];
    }

    /** Whether a counter counts perf's clock (cpu-clock, task-clock): its period is nanoseconds. */
    static boolean clock(CounterConfig counter) {
        String name = counter.event().name();
        return name.startsWith("cpu-clock") || name.startsWith("task-clock");
    }

    /** The first counter's mean period over its samples (a recording sampled by frequency has no fixed one). */
    private long meanPeriod() {
        StackTable stacks = snapshot.stacks();
        long samples = 0;
        long weight = 0;
        for (int s = 0; s < stacks.size(); s++) {
            samples += stacks.count(s, 0);
            weight += stacks.weight(s, 0);
        }
        return samples == 0 ? 0 : Math.round((double) weight / samples);
    }

    /** The two sample type names of counter {@code c}: samples, and events (or cpu, for a clock). */
    static String[] sampleTypeNames(List<CounterConfig> counters, int c) {
        String weights = clock(counters.get(c)) ? CPU : EVENTS;
        if (counters.size() == 1) {
            return new String[] {SAMPLES, weights};
        }
        String event = counters.get(c).event().name();
        for (int other = 0; other < counters.size(); other++) {
            if (other != c && counters.get(other).event().name().equals(event)) {
                event = event + "#" + counters.get(c).counter();
                break;
            }
        }
        return new String[] {SAMPLES + ":" + event, weights + ":" + event};
    }

    /** @param leafSamples receives, per location, the samples (of every counter) whose own location it is */
    private void addSamples(int counters, boolean[] usedLocation, long[] leafSamples) {
        SessionInfo info = snapshot.info();
        StackTable stacks = snapshot.stacks();
        long domainKey = string(LABEL_DOMAIN);
        long domainIdKey = string(LABEL_DOMAIN_ID);
        long vcpuKey = string(LABEL_VCPU);
        long modeKey = string(LABEL_MODE);
        long domainIdUnit = string(UNIT_DOMAIN_ID);
        long vcpuUnit = string(UNIT_VCPU);
        long pidKey = string(LABEL_PID);
        long tidKey = string(LABEL_TID);
        long commKey = string(LABEL_COMM);
        // whether each leaf location passes the filter: null until asked, so each is matched once
        Boolean[] keptLeaf = new Boolean[snapshot.locations().size()];
        for (int s = 0; s < stacks.size(); s++) {
            int domain = stacks.domain(s);
            if (domainFilter != ReportRequest.ALL_DOMAINS && domain != domainFilter
                    || !filter.keepsVcpu(stacks.vcpu(s)) || !keptLeaf(keptLeaf, stacks.location(s, 0))) {
                continue;
            }
            Sample.Builder sample = Sample.newBuilder();
            for (int level = 0; level < stacks.depth(s); level++) {
                int location = stacks.location(s, level);
                usedLocation[location] = true;
                sample.addLocationId(location + 1L);
            }
            for (int c = 0; c < counters; c++) {
                sample.addValue(stacks.count(s, c));
                sample.addValue(stacks.weight(s, c));
                leafSamples[stacks.location(s, 0)] += stacks.count(s, c);
            }
            sample.addLabel(Label.newBuilder().setKey(domainKey).setStr(string(info.domainName(domain))));
            sample.addLabel(Label.newBuilder().setKey(domainIdKey).setNum(domain).setNumUnit(domainIdUnit));
            sample.addLabel(Label.newBuilder().setKey(vcpuKey).setNum(stacks.vcpu(s)).setNumUnit(vcpuUnit));
            sample.addLabel(Label.newBuilder().setKey(modeKey).setStr(string(MODE_NAMES[stacks.mode(s)])));
            int comm = stacks.comm(s);
            if (comm != SampleBatch.UNKNOWN) {
                String name = info.dictionary().commName(comm);
                sample.addLabel(Label.newBuilder().setKey(pidKey).setNum(stacks.pid(s)));
                sample.addLabel(Label.newBuilder().setKey(tidKey).setNum(stacks.tid(s)));
                sample.addLabel(Label.newBuilder().setKey(commKey).setStr(string(name != null ? name
                        : ":" + stacks.tid(s))));
            }
            profile.addSample(sample);
        }
    }

    /** Whether the filter keeps the samples whose own frame is {@code location}. */
    private boolean keptLeaf(Boolean[] kept, int location) {
        if (kept[location] == null) {
            SessionDictionary dictionary = snapshot.info().dictionary();
            LocationTable locations = snapshot.locations();
            int symbol = locations.symbol(location);
            kept[location] = filter.keeps(dictionary.imageName(locations.image(location)),
                    symbol >= 0 ? dictionary.shownName(symbol) : RowFilter.NO_SYMBOLS);
        }
        return kept[location];
    }

    private void addLocations(boolean[] usedLocation, long[] leafSamples) {
        SessionDictionary dictionary = snapshot.info().dictionary();
        LocationTable locations = snapshot.locations();
        SessionMappings placed = new SessionMappings(dictionary);
        int imageCount = dictionary.imageCount();
        int symbolCount = dictionary.symbolCount();
        usedImage = new boolean[imageCount];
        boolean[] usedFunction = new boolean[symbolCount + imageCount];
        long[] mappingOf = new long[locations.size()];
        boolean[] usedPlaced = new boolean[placed.size()];
        boolean[] placedHasFunctions = new boolean[placed.size()];
        long[] placedSamples = new long[placed.size()];
        List<Integer> unplaced = new java.util.ArrayList<>();
        for (int l = 0; l < locations.size(); l++) {
            if (!usedLocation[l]) {
                continue;
            }
            int image = locations.image(l);
            long pc = locations.pc(l);
            usedImage[image] = true;
            int m = pc != LocationTable.FUNCTION_LEVEL ? placed.find(image, pc) : -1;
            if (m >= 0) {
                mappingOf[l] = m + 1L;
                usedPlaced[m] = true;
                placedSamples[m] += leafSamples[l];
                placedHasFunctions[m] |= locations.symbol(l) >= 0;
            } else {
                unplaced.add(l);
            }
        }
        Synthetic synthetic = new Synthetic(placed, usedPlaced, unplaced, mappingOf);
        for (int l = 0; l < locations.size(); l++) {
            if (!usedLocation[l]) {
                continue;
            }
            long pc = locations.pc(l);
            Location.Builder location = Location.newBuilder().setId(l + 1L).setMappingId(mappingOf[l])
                    .setAddress(pc != LocationTable.FUNCTION_LEVEL ? pc : 0L);
            int symbol = locations.symbol(l);
            // In a placed image an address no symbol covers stays an address: pprof -disasm and a
            // symbolizing server can still say what it is. Elsewhere (no file) it is the image's.
            if (symbol >= 0 || mappingOf[l] > placed.size()) {
                int functionIndex = functionIndex(symbol, locations.image(l), symbolCount);
                usedFunction[functionIndex] = true;
                location.addLine(Line.newBuilder().setFunctionId(functionIndex + 1L));
            }
            profile.addLocation(location);
        }
        // pprof takes the first mapping for the main binary (its "File:" line): the program most
        // samples ran in, else the most-sampled mapping; the others follow in the session's order.
        boolean[] program = programs(dictionary);
        int main = -1;
        for (int m = 0; m < placed.size(); m++) {
            if (usedPlaced[m] && (main < 0 || better(program, placed, placedSamples, m, main))) {
                main = m;
            }
        }
        for (int k = -1; k < placed.size(); k++) {
            int m = k < 0 ? main : k;
            if (m < 0 || !usedPlaced[m] || k >= 0 && m == main) {
                continue;
            }
            ImageMapping at = placed.mapping(m);
            int image = at.image();
            Mapping.Builder mapping = Mapping.newBuilder().setId(m + 1L).setMemoryStart(at.start())
                    .setMemoryLimit(at.limit()).setFileOffset(at.fileOffset())
                    .setFilename(string(dictionary.imageName(image))).setHasFunctions(placedHasFunctions[m]);
            String buildId = dictionary.imageBuildId(image);
            if (buildId != null) {
                mapping.setBuildId(string(buildId));
            }
            profile.addMapping(mapping);
        }
        for (int k = 0; k < synthetic.size(); k++) {
            Mapping.Builder mapping = Mapping.newBuilder().setId(synthetic.id(k))
                    .setFilename(string(dictionary.imageName(synthetic.image(k)))).setHasFunctions(true);
            if (synthetic.spans(k)) {
                mapping.setMemoryStart(synthetic.start(k)).setMemoryLimit(synthetic.limit(k));
            }
            profile.addMapping(mapping);
        }
        placedMappings = 0;
        for (boolean used : usedPlaced) {
            placedMappings += used ? 1 : 0;
        }
        syntheticMappings = synthetic.size();
        for (int f = 0; f < usedFunction.length; f++) {
            if (!usedFunction[f]) {
                continue;
            }
            // pprof's own split: the demangled name, and the name as the binary has it.
            String name = f < symbolCount ? dictionary.shownName(f)
                    : dictionary.imageName(f - symbolCount) + NO_SYMBOLS;
            String systemName = f < symbolCount ? dictionary.symbolName(f) : name;
            profile.addFunction(Function.newBuilder().setId(f + 1L).setName(string(name))
                    .setSystemName(string(systemName)));
        }
    }

    private int placedMappings;
    private int syntheticMappings;

    /**
     * The mappings of the locations no placed mapping covers (images the source placed nowhere:
     * the simulator's, perf's {@code [unknown]} and {@code [hypervisor]}): each a run of an image's
     * sampled PCs, {@code [lowest, highest + 1)}, that no other image's PC and no placed mapping of
     * the domain interrupts, so that no two mappings of one domain overlap; a run of one image
     * between others' becomes a mapping of its own. Ids follow the placed mappings'. Locations
     * folded to their function (no PC) go into their image's first run, or a run with no range.
     */
    private final class Synthetic {
        private final List<long[]> runs = new java.util.ArrayList<>(); // {id, image, start, limit}

        Synthetic(SessionMappings placed, boolean[] usedPlaced, List<Integer> unplaced, long[] mappingOf) {
            SessionDictionary dictionary = snapshot.info().dictionary();
            LocationTable locations = snapshot.locations();
            // the used placed mappings' starts, sorted by (domain, start): what ends a run
            List<long[]> blockers = new java.util.ArrayList<>();
            for (int m = 0; m < placed.size(); m++) {
                if (usedPlaced[m]) {
                    ImageMapping at = placed.mapping(m);
                    blockers.add(new long[] {dictionary.imageDomain(at.image()), at.start()});
                }
            }
            blockers.sort(Synthetic::compare);
            this.blockers = blockers.toArray(long[][]::new);
            Integer[] exact = unplaced.stream().filter(l -> locations.pc(l) != LocationTable.FUNCTION_LEVEL)
                    .toArray(Integer[]::new);
            Arrays.sort(exact, (a, b) -> {
                int c = Integer.compare(dictionary.imageDomain(locations.image(a)),
                        dictionary.imageDomain(locations.image(b)));
                return c != 0 ? c : Long.compareUnsigned(locations.pc(a), locations.pc(b));
            });
            long nextId = placed.size() + 1L;
            Map<Integer, Integer> firstRun = new HashMap<>();
            long[] run = null;
            int runDomain = 0;
            for (int l : exact) {
                int image = locations.image(l);
                int domain = dictionary.imageDomain(image);
                long pc = locations.pc(l);
                boolean extends_ = run != null && run[1] == image && runDomain == domain
                        && !placedStartIn(domain, run[3] - 1, pc);
                if (!extends_) {
                    run = new long[] {nextId++, image, pc, pc + 1};
                    runDomain = domain;
                    firstRun.putIfAbsent(image, runs.size());
                    runs.add(run);
                }
                run[3] = pc + 1;
                mappingOf[l] = run[0];
            }
            for (int l : unplaced) {
                if (locations.pc(l) == LocationTable.FUNCTION_LEVEL) {
                    int image = locations.image(l);
                    Integer k = firstRun.get(image);
                    if (k == null) {
                        k = runs.size();
                        firstRun.put(image, k);
                        runs.add(new long[] {nextId++, image, 0, 0});
                    }
                    mappingOf[l] = runs.get(k)[0];
                }
            }
        }

        private long[][] blockers;

        private static int compare(long[] a, long[] b) {
            int c = Long.compare(a[0], b[0]);
            return c != 0 ? c : Long.compareUnsigned(a[1], b[1]);
        }

        /** Whether a used placed mapping of {@code domain} starts in {@code (after, upTo]}. */
        private boolean placedStartIn(int domain, long after, long upTo) {
            long[] key = {domain, after};
            int lo = 0;
            int hi = blockers.length;
            while (lo < hi) { // the first blocker above (domain, after)
                int mid = (lo + hi) >>> 1;
                if (compare(blockers[mid], key) <= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo < blockers.length && compare(blockers[lo], new long[] {domain, upTo}) <= 0;
        }

        int size() {
            return runs.size();
        }

        long id(int k) {
            return runs.get(k)[0];
        }

        int image(int k) {
            return (int) runs.get(k)[1];
        }

        boolean spans(int k) {
            return runs.get(k)[3] != 0;
        }

        long start(int k) {
            return runs.get(k)[2];
        }

        long limit(int k) {
            return runs.get(k)[3];
        }
    }

    /** Functions are numbered symbols first, then one "(no symbols)" function per image. */
    private static int functionIndex(int symbol, int image, int symbolCount) {
        return symbol >= 0 ? symbol : symbolCount + image;
    }

    private void addComments(String strays) {
        SessionStacks.Snapshot s = snapshot;
        SessionInfo info = s.info();
        comment("Hyperprof session " + info.sessionId() + " (" + info.source() + ", " + info.hostName() + "): "
                + info.cpuName() + " (" + info.cpuType() + ")" + (info.mhz() > 0 ? " at " + info.mhz() + " MHz" : ""));
        for (CounterConfig c : info.counters()) {
            comment("counter " + c.counter() + ": " + c.describe());
        }
        if (domainFilter != ReportRequest.ALL_DOMAINS) {
            comment("domain " + domainFilter + " (" + info.domainName(domainFilter) + ") only");
        }
        if (!filter.all()) {
            comment("only the samples whose own frame passes the filter " + filter.describe()
                    + "; their callers are kept whatever their names");
        }
        comment("samples " + s.samples() + "; labels domain, domain_id, vcpu, mode (user, kernel, xen)"
                + "; pid, tid, comm where the source names threads");
        SessionDictionary dictionary = info.dictionary();
        // The images of the profile (its mappings), not every image the source named: a stored session
        // keeps only the names its samples use.
        for (int image = 0; image < dictionary.imageCount(); image++) {
            if (!usedImage[image]) {
                continue;
            }
            comment("image " + dictionary.imageName(image) + ": " + dictionary.imageKind(image).split()
                    + " image of domain " + dictionary.imageDomain(image));
        }
        comment("mappings: " + placedMappings + " where the source placed images (addresses, file offset, build-id)"
                + (syntheticMappings > 0 ? "; " + syntheticMappings + " spanning sampled addresses of images placed"
                        + " nowhere" : ""));
        SessionSummary summary = s.summary();
        if (summary == null) {
            comment("session still running when written");
        } else {
            comment("session ended: " + summary.endReason() + "; " + summary.accounting().line());
            for (ConsumerAccounting consumer : summary.consumers()) {
                if (PprofConsumer.NAME.equals(consumer.consumer())) {
                    comment("pprof consumer received " + consumer.received() + ", missed " + consumer.missed()
                            + (consumer.problem() == null ? "" : " (" + consumer.problem() + ")"));
                }
            }
        }
        if (s.rejectedSamples() > 0) {
            comment("rejected " + s.rejectedSamples() + " samples in " + s.rejectedBatches() + " batches; first: "
                    + s.firstRejection());
        }
        if (s.cutChains() > 0) {
            comment("call chains cut short: " + s.cutChains() + "; first: " + s.firstCutChain());
        }
        if (s.foldedPcs() > 0) {
            comment("PCs counted at their function's location (address 0) after "
                    + s.locations().exactLimit() + " distinct PCs: " + s.foldedPcs());
        }
        if (s.cutStacks() > 0) {
            comment("samples counted under their leaf alone after " + s.stacks().stackLimit()
                    + " distinct stacks: " + s.cutStacks());
        }
        if (strays != null) {
            comment(strays);
        }
    }

    /** {@code cycles} at {@code mhz} in nanoseconds, without overflowing for long sessions. */
    static long nanos(long cycles, long mhz) {
        return cycles / mhz * 1000L + cycles % mhz * 1000L / mhz;
    }

    private void comment(String text) {
        profile.addComment(string(text));
    }

    private ValueType valueType(String type, String unit) {
        return ValueType.newBuilder().setType(string(type)).setUnit(string(unit)).build();
    }

    private long string(String s) {
        Long index = strings.get(s);
        if (index != null) {
            return index;
        }
        long next = strings.size();
        strings.put(s, next);
        profile.addStringTable(s);
        return next;
    }
}

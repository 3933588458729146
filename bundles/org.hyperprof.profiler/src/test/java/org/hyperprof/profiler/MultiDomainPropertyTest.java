package org.hyperprof.profiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;
import org.hyperprof.api.host.DomainInfo;
import org.hyperprof.api.host.DomainState;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.OpcontrolResult;
import org.hyperprof.api.profiler.ProfileException;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.sample.BufferAccounting;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionSummary;
import org.hyperprof.api.xenoprof.SharedBuffer;

/**
 * Random domains taking random opcontrol steps in random orders, random run lengths, hostile writes
 * into the guests' own shared pages, pauses and destructions, on the real hypervisor and the
 * default and multi-domain scenarios. Whatever happens:
 * <ul>
 * <li>the accounting identity holds per buffer and per session, and the buffers' books add up to
 * Xen's: every delivered or lost sample sits in a buffer the session tracked. The one exception
 * is Xen's own: a primary that shuts down while a guest's daemon still runs leaves that guest
 * ACTIVE ({@code shutdown} zeroes the list without resetting its domains, and the guest's
 * {@code disable_virq} then fails), so later sessions still write its samples into its buffer,
 * which no daemon maps. Such a session's books may hold less than Xen's, and its notes must then
 * say by how much;</li>
 * <li>no sample of one domain reaches another domain's batches or images, except passive samples
 * that only the primary drains: a sample's domain is the owner of a buffer the session tracked,
 * its images are that domain's, and for each buffer no guest wrote into, the consumer received
 * exactly the samples Xen wrote into it (by mode) when nothing was left in it, and never more.</li>
 * </ul>
 */
class MultiDomainPropertyTest {

    sealed interface Step permits Opcontrol, Run, Hostile, Pause, Unpause, Destroy {
    }

    record Opcontrol(int domid, List<String> args) implements Step {
    }

    record Run(int micros) implements Step {
    }

    /** The guest writes {@code value} into its own page's head (or tail); {@code value} is scaled by the ring size. */
    record Hostile(int domid, int vcpu, boolean head, int kind) implements Step {
    }

    record Pause(int domid) implements Step {
    }

    record Unpause(int domid) implements Step {
    }

    record Destroy(int domid) implements Step {
    }

    // ---------------------------------------------------------------- generators

    private static Arbitrary<String> idList() {
        return Arbitraries.integers().between(0, 5).list().ofMaxSize(4)
                .map(ids -> String.join(",", ids.stream().map(String::valueOf).toList()));
    }

    private static Arbitrary<Step> startDaemon() {
        Arbitrary<String> active = Arbitraries.oneOf(Arbitraries.just(""), idList().map(s -> "--active-domains=" + s));
        Arbitrary<String> passive = Arbitraries.oneOf(Arbitraries.just(""), Arbitraries.just(""),
                idList().map(s -> "--passive-domains=" + s));
        Arbitrary<String> callgraph = Arbitraries.oneOf(Arbitraries.just(""),
                Arbitraries.integers().between(0, 5).map(n -> "--callgraph=" + n));
        Arbitrary<String> size = Arbitraries.of("", "", "--buffer-size=64");
        Arbitrary<Integer> domid = Arbitraries.frequency(net.jqwik.api.Tuple.of(3, 0), net.jqwik.api.Tuple.of(2, 1),
                net.jqwik.api.Tuple.of(1, 2), net.jqwik.api.Tuple.of(1, 3), net.jqwik.api.Tuple.of(1, 4));
        return Combinators.combine(domid, active, passive, callgraph, size).as((d, a, p, c, s) -> {
            List<String> args = new ArrayList<>(List.of("--start-daemon"));
            for (String x : List.of(a, p, c, s)) {
                if (!x.isEmpty()) {
                    args.add(x);
                }
            }
            return new Opcontrol(d, args);
        });
    }

    private static Arbitrary<Step> simpleStep() {
        Arbitrary<String> action = Arbitraries.of("--start", "--start", "--stop", "--dump", "--shutdown", "--hold",
                "--release", "--status", "--reset", "--deinit");
        return Combinators.combine(Arbitraries.integers().between(0, 4), action)
                .as((d, a) -> new Opcontrol(d, List.of(a)));
    }

    private static Arbitrary<Step> listWrite() {
        return Combinators.combine(Arbitraries.integers().between(0, 1), Arbitraries.of("--active-domains=",
                "--passive-domains="), idList()).as((d, f, ids) -> new Opcontrol(d, List.of(f + ids)));
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> run = Arbitraries.integers().between(200, 8_000).map(Run::new);
        Arbitrary<Step> hostile = Combinators.combine(Arbitraries.integers().between(0, 4),
                Arbitraries.integers().between(0, 1), Arbitraries.of(true, false), Arbitraries.integers().between(0, 4))
                .as(Hostile::new);
        Arbitrary<Step> pause = Arbitraries.integers().between(1, 4).map(Pause::new);
        Arbitrary<Step> unpause = Arbitraries.integers().between(1, 4).map(Unpause::new);
        Arbitrary<Step> destroy = Arbitraries.integers().between(1, 4).map(Destroy::new);
        Arbitrary<Step> step = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, startDaemon()),
                net.jqwik.api.Tuple.of(6, simpleStep()), net.jqwik.api.Tuple.of(6, run), net.jqwik.api.Tuple.of(1,
                        listWrite()), net.jqwik.api.Tuple.of(2, hostile), net.jqwik.api.Tuple.of(1, pause),
                net.jqwik.api.Tuple.of(1, unpause), net.jqwik.api.Tuple.of(1, destroy));
        return step.list().ofMinSize(4).ofMaxSize(18);
    }

    /** A scenario and the steps played on it. */
    record Case(String scenario, List<Step> steps) {
    }

    @Provide
    Arbitrary<Case> cases() {
        return Combinators.combine(Arbitraries.of(HostService.DEFAULT_SCENARIO, RealHost.MULTI), steps()).as(Case::new);
    }

    /**
     * Sequences that open like the documented workflow with lists that fit the scenario (dom0 with
     * some of its guests active and, on the multi-domain host, some passive, with or without call
     * traces), run, then go on at random: most tries profile something.
     */
    @Provide
    Arbitrary<Case> workflows() {
        Arbitrary<Case> defaultHost = Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers()
                .between(0, 4), Arbitraries.integers().between(500, 6_000), steps()).as((activeGuest, depth, us, rest) -> {
                    List<Step> all = new ArrayList<>();
                    all.add(new Opcontrol(0, List.of("--start-daemon", activeGuest ? "--active-domains=0,1"
                            : "--passive-domains=1", "--callgraph=" + depth)));
                    if (activeGuest) {
                        all.add(new Opcontrol(1, List.of("--start-daemon")));
                    }
                    all.add(new Opcontrol(0, List.of("--start")));
                    all.add(new Run(us));
                    all.addAll(rest);
                    return new Case(HostService.DEFAULT_SCENARIO, all);
                });
        Arbitrary<List<Integer>> actives = Arbitraries.of(1, 4).set().map(x -> List.copyOf(new TreeSet<>(x)));
        Arbitrary<List<Integer>> passives = Arbitraries.of(2, 3).set().map(x -> List.copyOf(new TreeSet<>(x)));
        Arbitrary<String> images = Arbitraries.of("", "--passive-images=vmlinux-syms-2.6.18-53.el5xen");
        Arbitrary<Case> multiHost = Combinators.combine(actives, passives, images, Arbitraries.integers().between(0, 4),
                Arbitraries.integers().between(500, 6_000), steps()).as((a, p, img, depth, us, rest) -> {
                    List<String> args = new ArrayList<>(List.of("--start-daemon", "--active-domains=0" + suffix(a),
                            "--callgraph=" + depth));
                    if (!p.isEmpty()) {
                        args.add("--passive-domains=" + String.join(",", p.stream().map(String::valueOf).toList()));
                        if (!img.isEmpty() && p.get(0) == 2) {
                            args.add(img);
                        }
                    }
                    List<Step> all = new ArrayList<>();
                    all.add(new Opcontrol(0, args));
                    for (int d : a) {
                        all.add(new Opcontrol(d, List.of("--start-daemon")));
                    }
                    all.add(new Opcontrol(0, List.of("--start")));
                    all.add(new Run(us));
                    all.addAll(rest);
                    return new Case(RealHost.MULTI, all);
                });
        return Arbitraries.oneOf(defaultHost, multiHost);
    }

    private static String suffix(List<Integer> ids) {
        StringBuilder b = new StringBuilder();
        for (int id : ids) {
            b.append(',').append(id);
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- the properties

    @Property(tries = 40, shrinking = ShrinkingMode.BOUNDED)
    void randomStepSequencesKeepTheBooksAndTheDomainsApart(@ForAll("cases") Case c) throws Exception {
        play(c.scenario(), c.steps());
    }

    @Property(tries = 40, shrinking = ShrinkingMode.BOUNDED)
    void documentedOpeningsFollowedByRandomStepsKeepTheBooksAndTheDomainsApart(@ForAll("workflows") Case c)
            throws Exception {
        play(c.scenario(), c.steps());
        // The openings must really profile, passive domains included, or the property proves little.
        Statistics.label("session").coverage(check -> check.check("sampled").percentage(p -> p >= 50));
        Statistics.label("passive samples").coverage(check -> check.check(true).percentage(p -> p >= 10));
    }

    /** The sequence jqwik once shrank a failure of the books to, before the exception above was known. */
    @net.jqwik.api.Example
    void aGuestLeftActiveByThePrimarysEarlyDeinitStillGetsItsSamplesInTheNextSessionAndTheNotesSaySo()
            throws Exception {
        List<Step> steps = List.of(
                new Opcontrol(0, List.of("--start-daemon", "--active-domains=0,1", "--callgraph=0")),
                new Opcontrol(1, List.of("--start-daemon")), new Opcontrol(0, List.of("--start")), new Run(500),
                new Opcontrol(0, List.of("--deinit")), new Opcontrol(1, List.of("--shutdown")),
                new Opcontrol(0, List.of("--start-daemon")), new Opcontrol(0, List.of("--start")), new Run(2_000));
        play(HostService.DEFAULT_SCENARIO, steps);
        try (RealHost h = new RealHost(HostService.DEFAULT_SCENARIO)) {
            for (Step step : steps) {
                if (step instanceof Opcontrol o) {
                    h.profiler.opcontrol(o.domid(), o.args());
                } else {
                    h.host.run(((Run) step).micros(), ProgressListener.NONE);
                }
            }
            h.op(0, "--shutdown");
            SessionSummary second = h.sessions.summaries.get(h.sessions.order.get(1));
            long tracked = second.buffers().stream().mapToLong(b -> b.accounting().delivered()).sum();
            assertTrue(second.buffers().stream().allMatch(b -> b.domid() == 0), "only dom0 joined: " + second.buffers());
            assertTrue(tracked < second.accounting().delivered(), "Xen still wrote domain 1's samples: " + second);
            assertTrue(second.notes().contains(untrackedNote(tracked, 0, second)), second.notes().toString());
        }
    }

    @Provide
    Arbitrary<ProfileRequest> requests() {
        // Mostly requests that fit the host, sometimes ones it must refuse (the primary passive, an unknown domain).
        Arbitrary<Integer> guest = Arbitraries.frequency(net.jqwik.api.Tuple.of(8, 2), net.jqwik.api.Tuple.of(8, 3),
                net.jqwik.api.Tuple.of(4, 1), net.jqwik.api.Tuple.of(4, 4), net.jqwik.api.Tuple.of(1, 0),
                net.jqwik.api.Tuple.of(1, 5));
        Arbitrary<List<Integer>> passive = guest.list().ofMaxSize(2);
        Arbitrary<List<Integer>> active = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3,
                Arbitraries.just(List.of())), net.jqwik.api.Tuple.of(1, Arbitraries.of(0, 1, 3, 4).list().ofMaxSize(2)));
        Arbitrary<List<String>> images = Arbitraries.of("", "vmlinux-syms-2.6.18-53.el5xen",
                "vmlinux-2.6.24-19-generic", "mysqld").list().ofMaxSize(2);
        return Combinators.combine(active, passive, images, Arbitraries.integers().between(0, 6),
                Arbitraries.integers().between(1_000, 12_000)).as((a, p, i, c, us) -> new ProfileRequest(List.of(), us,
                        a, p, i, c));
    }

    /** A one-shot profile of any request either refuses it with a message, or keeps the books and the domains apart. */
    @Property(tries = 20, shrinking = ShrinkingMode.BOUNDED)
    void oneShotProfilesOfRandomRequestsKeepTheBooksAndTheDomainsApart(@ForAll("requests") ProfileRequest request)
            throws Exception {
        try (RealHost h = new RealHost(RealHost.MULTI)) {
            SessionSummary s;
            try {
                s = h.profiler.profile(request, ProgressListener.NONE);
            } catch (ProfileException e) {
                assertFalse(e.getMessage().contains("\tat "), e.getMessage());
                assertTrue(e.getMessage().length() > 20, e.getMessage());
                return;
            }
            check(h, s, Set.of(), Set.of(), Set.of());
            classify(s, false, false);
            for (int p : new TreeSet<>(request.passiveDomains())) {
                assertTrue(s.buffers().stream().anyMatch(b -> b.domid() == p && b.role().equals("passive")),
                        "domain " + p + " profiled passively: " + s.buffers());
            }
        }
    }

    // ---------------------------------------------------------------- playing a sequence

    private static final java.util.regex.Pattern STARTED = java.util.regex.Pattern.compile("Session (\\d+) started");
    /** What the primary's shutdown says when a guest's daemon still runs (that guest stays ACTIVE in Xen). */
    private static final String GUEST_DAEMONS_LEFT = "still run; shut them down first next time";

    private static String untrackedNote(long delivered, long lost, SessionSummary s) {
        return "the buffers this session tracked hold " + delivered + " delivered and " + lost + " lost sample(s), Xen"
                + " counted " + s.accounting().delivered() + " and " + s.accounting().lost()
                + ": the difference went to buffers no daemon of the session mapped";
    }

    private static void play(String scenario, List<Step> steps) throws Exception {
        try (RealHost h = new RealHost(scenario)) {
            List<DomainInfo> domains = h.host.domains();
            Set<String> hostile = new HashSet<>();
            Set<Long> resetSessions = new HashSet<>();
            Map<Long, Set<Integer>> destroyedDuring = new HashMap<>();
            Set<Long> afterLeak = new HashSet<>();
            boolean guestLeftActive = false;
            Long current = null;
            for (Step step : steps) {
                if (step instanceof Opcontrol o) {
                    int d = domains.get(o.domid() % domains.size()).domid();
                    OpcontrolResult r = h.profiler.opcontrol(d, o.args());
                    assertNotNull(r.output());
                    assertFalse(r.output().contains("\tat "), r.output());
                    assertFalse(r.output().contains("did not return: the hypervisor raised"), r.output());
                    if (o.args().contains("--reset") && r.ok() && current != null) {
                        resetSessions.add(current);
                    }
                    // The session in force, as opcontrol reports it (the consumer hears of it on its own thread).
                    if (r.output().contains("Session " + current + " ended.")) {
                        current = null;
                    }
                    java.util.regex.Matcher m = STARTED.matcher(r.output());
                    if (m.find()) {
                        current = Long.parseLong(m.group(1));
                        if (guestLeftActive) {
                            afterLeak.add(current);
                        }
                    }
                    guestLeftActive |= r.output().contains(GUEST_DAEMONS_LEFT);
                } else if (step instanceof Run run) {
                    h.host.run(run.micros(), ProgressListener.NONE);
                } else if (step instanceof Hostile x) {
                    String written = hostileWrite(h, domains.get(x.domid() % domains.size()).domid(), x);
                    if (written != null) {
                        hostile.add(written);
                    }
                } else if (step instanceof Pause p) {
                    DomainInfo info = domains.get(p.domid() % domains.size());
                    if (!info.hardwareDomain() && h.host.domainState(info.domid()) == DomainState.RUNNING) {
                        h.host.pauseDomain(info.domid());
                    }
                } else if (step instanceof Unpause p) {
                    int d = domains.get(p.domid() % domains.size()).domid();
                    if (h.host.domainState(d) == DomainState.PAUSED) {
                        h.host.unpauseDomain(d);
                    }
                } else if (step instanceof Destroy x) {
                    DomainInfo info = domains.get(x.domid() % domains.size());
                    if (!info.hardwareDomain() && h.host.domainState(info.domid()) != DomainState.DESTROYED) {
                        h.host.destroyDomain(info.domid());
                        if (current != null) {
                            destroyedDuring.computeIfAbsent(current, k -> new HashSet<>()).add(info.domid());
                        }
                    }
                }
            }
            // The end everybody should reach: guests unpaused and released, dom0 stops, domUs then dom0 shut down.
            for (DomainInfo d : domains) {
                if (h.host.domainState(d.domid()) == DomainState.PAUSED) {
                    h.host.unpauseDomain(d.domid());
                }
            }
            Long last = current;
            for (DomainInfo d : domains) {
                h.op(d.domid(), "--release");
            }
            h.op(0, "--stop");
            for (DomainInfo d : domains) {
                if (!d.hardwareDomain()) {
                    h.op(d.domid(), "--shutdown");
                }
            }
            h.op(0, "--shutdown");
            if (last != null) {
                assertNotNull(h.sessions.summaries.get(last), "the primary's shutdown ended the session");
            }
            for (long id : h.sessions.order) {
                SessionSummary s = h.sessions.summaries.get(id);
                assertNotNull(s, "session " + id + " has a summary");
                classify(s, !hostile.isEmpty(), destroyedDuring.containsKey(id));
                Set<String> relaxed = new HashSet<>(hostile);
                check(h, s, relaxed, resetSessions.contains(id) ? Set.of(id) : Set.of(),
                        destroyedDuring.getOrDefault(id, Set.of()), afterLeak.contains(id));
            }
        }
    }

    /** The guest {@code d} writes into its own page, if it has one mapped; returns "domid/vcpu" or null. */
    private static String hostileWrite(RealHost h, int d, Hostile x) {
        SharedBuffer[] mine;
        try {
            mine = h.host.xenoprof().mapBuffers(d, d);
        } catch (IllegalStateException | IllegalArgumentException e) {
            return null;
        }
        if (mine.length == 0) {
            return null;
        }
        SharedBuffer b = mine[x.vcpu() % mine.length];
        int size = b.size();
        int value = switch (x.kind()) {
            case 0 -> -1;
            case 1 -> size;
            case 2 -> size + 1000;
            case 3 -> Integer.MIN_VALUE;
            default -> size / 2;
        };
        if (x.head()) {
            b.writeHead(value);
        } else {
            b.writeTail(value);
        }
        return d + "/" + b.vcpuId();
    }

    /** What the tries exercised, reported by jqwik: sessions with samples, passive domains, hostile pages. */
    private static void classify(SessionSummary s, boolean hostile, boolean destroyed) {
        boolean sampled = s.accounting().delivered() > 0;
        boolean passive = s.buffers().stream().anyMatch(b -> b.role().equals("passive") && b.accounting().delivered() > 0);
        boolean lost = s.accounting().lost() > 0;
        Statistics.label("session").collect(sampled ? "sampled" : "no samples");
        Statistics.label("passive samples").collect(passive);
        Statistics.label("lost samples").collect(lost);
        Statistics.label("hostile page").collect(hostile);
        Statistics.label("destroyed mid-session").collect(destroyed);
    }


    // ---------------------------------------------------------------- the checks

    private static void check(RealHost h, SessionSummary s, Set<String> hostile, Set<Long> reset,
            Set<Integer> destroyed) {
        check(h, s, hostile, reset, destroyed, false);
    }

    /** @param afterLeak whether an earlier session ended with a guest's daemon still running (see the class comment) */
    private static void check(RealHost h, SessionSummary s, Set<String> hostile, Set<Long> reset,
            Set<Integer> destroyed, boolean afterLeak) {
        String where = "session " + s.sessionId() + " " + s.accounting().line() + " " + s.buffers() + " notes "
                + s.notes();
        assertTrue(s.accounting().balanced(), where);
        assertTrue(s.hypervisor().balanced(), where);
        long delivered = 0;
        long lost = 0;
        Map<String, BufferAccounting> books = new HashMap<>();
        for (BufferAccounting b : s.buffers()) {
            assertTrue(b.accounting().balanced(), b + " in " + where);
            // Samples Xen wrote that the daemon could not read because the guest moved its indices: invalid.
            long unread = b.userSamples() + b.kernelSamples() + b.xenSamples() - b.accounting().delivered();
            assertTrue(unread >= 0, where);
            assertTrue(unread == 0 || hostile.contains(b.domid() + "/" + b.vcpu()),
                    "only a guest that wrote its own indices loses samples it was given: " + b + " in " + where);
            assertTrue(b.accounting().invalid() <= s.hypervisor().corruptedBufferSamples() + unread, where);
            assertTrue(b.drained() >= 0 && b.undrained() >= 0, where);
            delivered += b.accounting().delivered();
            lost += b.accounting().lost();
            books.put(b.domid() + "/" + b.vcpu(), b);
        }
        if (afterLeak && (delivered != s.accounting().delivered() || lost != s.accounting().lost())) {
            assertTrue(delivered <= s.accounting().delivered() && lost <= s.accounting().lost(),
                    "the tracked buffers hold no more than Xen counted: " + where);
            assertTrue(s.notes().contains(untrackedNote(delivered, lost, s)),
                    "the session says where the samples of the guest left active went: " + where);
        } else {
            assertEquals(s.accounting().delivered(), delivered, "every delivered sample sits in a tracked buffer: "
                    + where);
            assertEquals(s.accounting().lost(), lost, "every lost sample was lost by a tracked buffer: " + where);
        }
        for (var c : s.consumers()) {
            assertEquals(0, c.missed(), where);
        }
        for (int d : destroyed) {
            if (books.keySet().stream().anyMatch(k -> k.startsWith(d + "/"))) {
                assertTrue(s.notes().stream().anyMatch(n -> n.contains("domain " + d + " (")
                        || n.contains("domain " + d + " was destroyed")), "domain " + d + " destroyed: " + where);
            }
        }

        List<SampleBatch> batches = h.sessions.batches.getOrDefault(s.sessionId(), List.of());
        SessionDictionary dict = h.sessions.infos.get(s.sessionId()).dictionary();
        Map<String, long[]> received = new HashMap<>();
        for (SampleBatch b : batches) {
            assertEquals(s.sessionId(), b.sessionId);
            for (int i = 0; i < b.size; i++) {
                String key = b.domain[i] + "/" + b.vcpu[i];
                BufferAccounting book = books.get(key);
                assertNotNull(book, "sample of " + key + " comes from a buffer the session tracked: " + where);
                assertEquals(b.domain[i], dict.imageDomain(b.image[i]), "a sample resolves in its own domain");
                for (int c = b.chainStart[i]; c < b.chainStart[i + 1]; c++) {
                    assertEquals(b.domain[i], dict.imageDomain(b.chainImage[c]), "a caller resolves in its own domain");
                }
                String image = dict.imageName(b.image[i]);
                if (book.role().equals("passive")) {
                    assertTrue(b.domain[i] != 0, "the primary is never passive");
                    assertTrue(image.startsWith("domain" + b.domain[i] + "-") || dict.imageKind(b.image[i])
                            == org.hyperprof.api.sample.ImageKind.KERNEL, "passive image " + image);
                } else {
                    assertFalse(image.startsWith("domain" + b.domain[i] + "-"), "an active domain resolves itself: "
                            + image);
                }
                received.computeIfAbsent(key, k -> new long[3])[b.mode[i]]++;
            }
        }
        if (!reset.isEmpty()) {
            return;
        }
        for (BufferAccounting b : s.buffers()) {
            String key = b.domid() + "/" + b.vcpu();
            long[] got = received.getOrDefault(key, new long[3]);
            long total = got[0] + got[1] + got[2];
            assertTrue(total <= b.accounting().delivered(), "no more samples of " + key + " than Xen wrote into it"
                    + " (a guest's indices included): " + total + " > " + b + " in " + where);
            if (hostile.contains(key)) {
                continue;
            }
            if (b.undrained() == 0) {
                assertEquals(List.of(b.userSamples(), b.kernelSamples(), b.xenSamples()), List.of(got[0], got[1], got[2]),
                        "exactly the samples Xen wrote into " + key + ", by mode: " + where);
            }
        }
    }
}

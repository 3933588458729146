package org.hyperprof.source.perf;

import static org.hyperprof.source.perf.PerfFormat.*;

/**
 * A part of a mapped recording that a flat import reads and counts on a thread of its own
 * ({@code hyperprof-perf-part}) while the parts before it are read: the import then takes its
 * counts as if it had read the part itself (see {@link PerfImport}).
 *
 * <h2>Keys</h2>
 * A part does not know the maps its processes had where it starts, only the mappings made in it.
 * Those are enough for an address they cover: a new mapping replaces whatever it overlaps
 * ({@link ProcessMaps}), so an address covered by a mapping made in the part resolves to it
 * whatever came before. Such a sample is counted by (image, file-relative address), the import's
 * own deferred key; a user sample outside them by (process, generation of that process's maps in
 * the part, address), the generation changing where the process's maps change (MMAP, FORK of a new
 * process), so that one key always stands for one mapping; a kernel sample by its address.
 *
 * <h2>Lead-in</h2>
 * perf's ordering hands a round's records on at the rounds after it, so where a part starts a
 * reading in sequence still holds records of the round before. The part's reader therefore starts
 * {@link PerfDataReader#LEAD_IN_ROUNDS} rounds early and counts nothing the reading before the part
 * hands on itself; the import takes the part only when the part's reader found, where the part
 * starts, the queue and ordering bounds the reading in sequence has there
 * ({@link PerfDataReader#canAbsorb}), and when the threads the part met first are in the processes
 * the import has them in ({@link Threads#agreeWith}).
 *
 * <h2>Replay</h2>
 * The side-band records are kept in order with the number of keys first met before each. The
 * import, which has the maps as they are where the part starts, replays the part: each side-band
 * record at its place among the keys in the order first met, each key deferred as its samples would
 * have been. The deferred keys then come out in the same first-met order, with the same counts, as
 * from a reading in sequence.
 *
 * <p>It gives up (and the import reads the part itself) at anything that needs the import's state
 * while reading: a sample of a guest or the hypervisor (their domains are numbered as met), a
 * kernel's map (deferred keys resolve against the kernel map of their time), a record perf writes
 * for itself, a problem worth a note, or more side-band records than it keeps.
 */
final class RecordingPart extends ReadHere implements Runnable {

    /** The most side-band records a part keeps; past it, it gives up (memory stays bounded). */
    static final int MAX_SIDE_BAND = 1 << 18;

    final PerfDataReader reader;
    /**
     * Keyed by (image << 32, file-relative address) for user samples in a mapping made in the
     * part, (pid << 32 | generation, address) for other user samples, (0, address) for kernel ones.
     */
    private final AddressCounts keys = new AddressCounts(1 << 14);
    private final LongIntMap generations = new LongIntMap(256);
    private int lastGeneration = 1;
    /** The mappings made in the part, by process. */
    private final IntObjectMap<ProcessMaps> mapsMade = new IntObjectMap<>(256);
    private final ProcessMaps.Spare spareMaps = new ProcessMaps.Spare();
    /** The part's images by name; an image's number (from 1) is in its {@link Dso#serial}. */
    private final java.util.Map<String, Dso> images = new java.util.HashMap<>();
    private final java.util.List<String> imageNames = new java.util.ArrayList<>(java.util.List.of(""));
    /**
     * The last processes met, by pid modulo {@link #RECENT}: the samples of the CPUs interleave in
     * time order, so the pid changes at almost every sample, and two hash lookups per sample cost
     * more than the rest of its counting.
     */
    private static final int RECENT = 16;
    private final int[] recentPid = new int[RECENT];
    private final long[] recentKey = new long[RECENT];
    private final ProcessMaps[] recentMaps = new ProcessMaps[RECENT];

    private byte[] sideKind = new byte[64];
    private Object[] sideEvent = new Object[64];
    /** The keys first met before each side-band record. */
    private int[] sideAfterKeys = new int[64];
    private int sides;

    private volatile boolean cancelled;

    // The outcome, read after the thread ended.
    /** Whether the part read up to its stop exactly (else to the end of the data). */
    private boolean paused;
    /** Why the part cannot be taken as read, or null. */
    private String gaveUp;
    private RuntimeException bug;
    private Error error;

    /** Thrown to end the reading early. */
    private static final class GiveUp extends RuntimeException {
        private static final long serialVersionUID = 1L;

        GiveUp(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Round ends handed on so far: what comes before the {@link PerfDataReader#LEAD_IN_ROUNDS}-th is
     * the lead-in, which the reading before the part hands on itself.
     */
    private int rounds;

    /** The part of {@code recording} from {@code start} to {@code stop} ({@link PerfDataReader#part}). */
    RecordingPart(PerfDataReader recording, PerfDataReader.PartStart start, long stop) {
        this.reader = recording.part(start, stop);
        java.util.Arrays.fill(recentPid, Integer.MIN_VALUE);
    }

    @Override
    public void run() {
        try {
            paused = reader.read(this);
        } catch (GiveUp e) {
            gaveUp = e.getMessage();
        } catch (PerfDataException e) {
            gaveUp = e.getMessage();
        } catch (RuntimeException e) {
            bug = e;
        } catch (Error e) {
            error = e;
        }
    }

    /** Asks the reading to stop soon (its outcome is not wanted). */
    void cancel() {
        cancelled = true;
    }

    /**
     * Whether the import may take this part as read (after its thread ended), its reader's books
     * joining {@code main}'s; a failure of the part's own code is thrown.
     */
    boolean canBeTaken(PerfDataReader main, Threads mainThreads) {
        if (error != null) {
            throw error;
        }
        if (bug != null) {
            throw bug;
        }
        return gaveUp == null && main.canAbsorb(reader) && mainThreads.agreeWith(threads);
    }

    /**
     * The threads the part met, each in the process perf finds it in: those met first in the part
     * are checked against the import's when the part is taken ({@link Threads#agreeWith}).
     */
    final Threads threads = new Threads();

    {
        threads.keepFirstSights();
    }

    /** Why the part could not read on on its own, or null. */
    String gaveUp() {
        return gaveUp;
    }

    /** Whether the part ended exactly at its stop (the next part's start), not at the end of the data. */
    boolean paused() {
        return paused;
    }

    // ---------------------------------------------------------------- the records

    @Override
    void act(RecordBatch raw) {
        if (cancelled) {
            throw new GiveUp("cancelled");
        }
        DecodedSamples d = raw.columns;
        int[] order = raw.order;
        for (int k = 0, n = raw.ordered; k < n; k++) {
            int i = order[k];
            if (rounds < PerfDataReader.LEAD_IN_ROUNDS) {
                rounds += raw.kind[i] == RecordBatch.ROUND ? 1 : 0;
                continue;
            }
            switch (raw.kind[i]) {
                case RecordBatch.SAMPLE -> {
                    if (d.attr[i].index >= 256) {
                        throw new GiveUp("a sample of an event beyond the 256th");
                    }
                    int cpumode = d.cpumode[i];
                    if (cpumode == CPUMODE_USER) {
                        // As the import finds a sample's process (PerfImport.sample).
                        userSample(threads.find(d.pid[i], d.tid[i]), d.ip[i], d.period[i]);
                    } else if (cpumode == CPUMODE_KERNEL) {
                        threads.find(d.pid[i], d.tid[i]);
                        keys.add(0, d.ip[i], d.period[i]);
                    } else {
                        throw new GiveUp("a sample of a guest or of the hypervisor");
                    }
                }
                case RecordBatch.MMAP -> {
                    RecordBatch.Mmap m = (RecordBatch.Mmap) raw.event[i];
                    if (m.cpumode() != CPUMODE_USER) {
                        throw new GiveUp("a kernel's map");
                    }
                    int pid = threads.find(m.pid(), m.tid());
                    newMaps(pid);
                    map(pid, m);
                    side(RecordBatch.MMAP, m);
                }
                case RecordBatch.FORK -> {
                    RecordBatch.Task t = (RecordBatch.Task) raw.event[i];
                    threads.make(t.ptid(), t.ppid());
                    threads.make(t.tid(), t.pid());
                    if (t.pid() != t.ppid()) {
                        newMaps(t.pid());
                        ProcessMaps parent = t.exec() ? null : mapsMade.get(t.ppid());
                        mapsMade.put(t.pid(), parent != null ? parent.copy() : new ProcessMaps());
                    }
                    side(RecordBatch.FORK, t);
                }
                case RecordBatch.COMM -> {
                    RecordBatch.Comm c = (RecordBatch.Comm) raw.event[i];
                    threads.find(c.pid(), c.tid());
                    side(RecordBatch.COMM, c);
                }
                case RecordBatch.EXIT -> side(RecordBatch.EXIT, raw.event[i]);
                case RecordBatch.ROUND -> {
                    // Rounds matter only to a live import's consumers.
                }
                default -> throw new GiveUp("a record of kind " + raw.kind[i]);
            }
        }
    }

    private void userSample(int pid, long ip, long period) {
        int slot = pid & (RECENT - 1);
        if (recentPid[slot] != pid) {
            int g = generations.get(pid);
            recentKey[slot] = ((long) pid << 32) | (g == LongIntMap.ABSENT ? 1 : g);
            recentMaps[slot] = mapsMade.get(pid);
            recentPid[slot] = pid;
        }
        ProcessMaps maps = recentMaps[slot];
        Dso image = maps == null ? null : maps.find(ip);
        if (image == null) {
            keys.add(recentKey[slot], ip, period);
        } else {
            long address = image.identity() ? ip : ip - maps.foundStart + maps.foundPgoff;
            keys.add((long) image.serial << 32, address, period);
        }
    }

    /** A user mapping made in the part, as the import's {@link Machines#mmap} makes it. */
    private void map(int pid, RecordBatch.Mmap m) {
        String name = Machines.hostImageName(pid, m);
        Dso image = images.get(name);
        if (image == null) {
            image = new Dso(name, Machines.hostImageKind(m), Machines.HOST_DOMAIN,
                    org.hyperprof.api.sample.ImageKind.USER, Machines.HOST_PID);
            image.serial = imageNames.size();
            imageNames.add(name);
            images.put(name, image);
        }
        ProcessMaps maps = mapsMade.get(pid);
        if (maps == null) {
            maps = new ProcessMaps();
            mapsMade.put(pid, maps);
        }
        maps.map(m.start(), m.length(), image.mappedOffset(m.start(), m.pgoff()), image, spareMaps);
    }

    /** The maps of process {@code pid} change: its later samples are keys of their own. */
    private void newMaps(int pid) {
        generations.put(pid, ++lastGeneration);
        recentPid[pid & (RECENT - 1)] = Integer.MIN_VALUE;
    }

    private void side(byte kind, Object event) {
        if (sides == MAX_SIDE_BAND) {
            throw new GiveUp("more than " + MAX_SIDE_BAND + " side-band records");
        }
        if (sides == sideKind.length) {
            int n = sides * 2;
            sideKind = java.util.Arrays.copyOf(sideKind, n);
            sideEvent = java.util.Arrays.copyOf(sideEvent, n);
            sideAfterKeys = java.util.Arrays.copyOf(sideAfterKeys, n);
        }
        sideKind[sides] = kind;
        sideEvent[sides] = event;
        sideAfterKeys[sides] = keys.size();
        sides++;
    }

    // ---------------------------------------------------------------- replay

    /** Receives a part's records as the import takes them. */
    interface Replay {
        /** A side-band record (MMAP, COMM, FORK or EXIT), at its place. */
        void sideBand(byte kind, Object event);

        /** {@code samples} samples of {@code period} in all at {@code ip}, a host user or kernel address. */
        void samples(int cpumode, int pid, long ip, long samples, long period);

        /** The import's host image of this name (a mapping replayed before made it known). */
        Dso image(String name);

        /** {@code samples} samples of {@code period} in all at {@code address} of {@code image}. */
        void samplesIn(Dso image, long address, long samples, long period);
    }

    /** Hands on the side-band records and keys in the order met (once; then the part is empty). */
    void replay(Replay to) {
        int[] next = {0};
        int[] keyIndex = {0};
        Dso[] theirs = new Dso[imageNames.size()];
        keys.drain((first, ip, samples, period, firstSample) -> {
            int k = keyIndex[0]++;
            while (next[0] < sides && sideAfterKeys[next[0]] <= k) {
                int s = next[0]++;
                to.sideBand(sideKind[s], sideEvent[s]);
            }
            if (first == 0) {
                to.samples(CPUMODE_KERNEL, 0, ip, samples, period);
            } else if ((int) first == 0) {
                int image = (int) (first >>> 32);
                Dso d = theirs[image];
                if (d == null) {
                    d = to.image(imageNames.get(image));
                    theirs[image] = d;
                }
                to.samplesIn(d, ip, samples, period);
            } else {
                to.samples(CPUMODE_USER, (int) (first >> 32), ip, samples, period);
            }
        });
        for (int s = next[0]; s < sides; s++) {
            to.sideBand(sideKind[s], sideEvent[s]);
        }
        sides = 0;
    }
}

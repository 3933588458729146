package org.hyperprof.source.perf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which process each thread belongs to, as perf keeps its threads (machine.c): a record's thread
 * is looked up by its tid, and a thread met before keeps the process it was first met in whatever
 * pid a later record gives (perf's {@code machine__findnew_thread}); a FORK makes its thread anew,
 * and makes the parent thread anew in the parent process if it was in another. In a sound
 * recording every record's pid is its thread's process; a corrupt pid or tid makes perf resolve a
 * sample, or file a mapping, in the thread's process, and so does the import.
 *
 * <p>Each thread also has its command name as perf keeps it (thread.c, comm.c), as a comm id of the
 * session's dictionary: a thread made anew (met first, or by a FORK) is a thread of its own (a reused
 * tid included) named {@code :<tid>}; its first COMM replaces that name, for its samples before too
 * (comm__override), and each later COMM (exec, {@code prctl(PR_SET_NAME)}) is a new comm for the
 * samples after it; a FORK's child takes its parent's name if the parent was named. The comm id of
 * a thread's {@code :<tid>} name is made when a sample first needs it.
 *
 * <p>A recent-thread cache makes the common lookup two compares; nothing is allocated but for a new thread.
 */
final class Threads {

    private static final int RECENT = 16;
    private static final int NO_COMM = -1;

    /** A thread, made anew by a FORK or when first met (then a thread of its own, a reused tid included). */
    private static final class Known {
        final int tid;
        int pid;
        /** Its comm id ({@link #NO_COMM} until a COMM named it or a sample needed its default name). */
        int comm;
        /** Whether a COMM (or its parent's name at its FORK) named it: perf's comm_set. */
        boolean named;
        /** Its number in the dictionary's comms, new each time it is made anew. */
        int number;

        Known(int tid) {
            this.tid = tid;
        }
    }

    private final IntObjectMap<Known> byTid = new IntObjectMap<>(256);
    /** Every thread, in the order first made. */
    private final List<Known> all = new ArrayList<>();
    private int nextNumber;
    /** The thread {@link #find} found last. */
    private Known found;
    /** (tid, pid) of a record met recently and the process it was found in; MIN_VALUE where empty. */
    private final int[] recentTid = new int[RECENT];
    private final int[] recentPid = new int[RECENT];
    private final int[] recentProcess = new int[RECENT];
    private final Known[] recentThread = new Known[RECENT];

    Threads() {
        Arrays.fill(recentTid, Integer.MIN_VALUE);
        Arrays.fill(recentPid, Integer.MIN_VALUE);
        Arrays.fill(recentProcess, Integer.MIN_VALUE);
    }
    /** Threads first met here (not made by a FORK), as (tid, pid) pairs, when kept ({@link #keepFirstSights}). */
    private long[] firstSights;
    private int firstSightCount;

    /** perf's idle thread (pid 0, tid 0, swapper) exists from the start. */
    static Threads withIdle() {
        Threads t = new Threads();
        t.make(0, 0);
        return t;
    }

    /** Keeps the threads met first by {@link #find} ({@link #firstSights}): a part's reader needs them checked. */
    void keepFirstSights() {
        firstSights = new long[16];
    }

    /** The process of thread {@code tid} that a record of {@code pid} names: the thread's if met before, else {@code pid}. */
    int find(int pid, int tid) {
        int slot = tid & (RECENT - 1);
        if (recentTid[slot] == tid && recentPid[slot] == pid) {
            found = recentThread[slot];
            return recentProcess[slot];
        }
        return look(pid, tid, slot);
    }

    private int look(int pid, int tid, int slot) {
        Known t = byTid.get(tid);
        if (t == null) {
            t = add(tid, pid);
            if (firstSights != null) {
                if (2 * firstSightCount + 2 > firstSights.length) {
                    firstSights = Arrays.copyOf(firstSights, firstSights.length * 2);
                }
                firstSights[2 * firstSightCount] = tid;
                firstSights[2 * firstSightCount + 1] = pid;
                firstSightCount++;
            }
        }
        recentTid[slot] = tid;
        recentPid[slot] = pid;
        recentProcess[slot] = t.pid;
        recentThread[slot] = t;
        found = t;
        return t.pid;
    }

    /** Makes thread {@code tid} anew in process {@code pid} (FORK): a thread of its own, not yet named. */
    void make(int tid, int pid) {
        Known t = byTid.get(tid);
        if (t == null) {
            t = add(tid, pid);
        } else {
            t.pid = pid;
            renew(t);
        }
        found = t;
        int slot = tid & (RECENT - 1);
        recentTid[slot] = Integer.MIN_VALUE;
        recentPid[slot] = Integer.MIN_VALUE;
        recentProcess[slot] = Integer.MIN_VALUE;
    }

    /**
     * A FORK's parent thread {@code tid} of process {@code pid}: perf keeps it when it is known in
     * that process, and makes it anew when it is not known or is another process's.
     */
    void parent(int tid, int pid) {
        Known t = byTid.get(tid);
        if (t == null || t.pid != pid) {
            make(tid, pid);
        } else {
            found = t;
        }
    }

    private Known add(int tid, int pid) {
        Known t = new Known(tid);
        t.pid = pid;
        renew(t);
        byTid.put(tid, t);
        all.add(t);
        return t;
    }

    private void renew(Known t) {
        t.comm = NO_COMM;
        t.named = false;
        t.number = nextNumber++;
    }

    /** The comm id of the thread {@link #find} (or {@link #make}) found last: its name now. */
    int comm(org.hyperprof.pipeline.Dictionary dictionary) {
        Known t = found;
        if (t.comm == NO_COMM) {
            t.comm = dictionary.addComm(":" + t.tid, t.number);
        }
        return t.comm;
    }

    /** COMM: names the thread {@link #find} found last (see the class comment). */
    void name(String name, org.hyperprof.pipeline.Dictionary dictionary) {
        Known t = found;
        if (t.named) {
            t.comm = dictionary.addComm(name, t.number);
        } else if (t.comm == NO_COMM) {
            t.comm = dictionary.addComm(name, t.number);
        } else {
            dictionary.renameComm(t.comm, name);
        }
        t.named = true;
    }

    /** FORK: the child {@code child} (just made) takes the name of thread {@code parent} if that was named. */
    void inheritName(int child, int parent, org.hyperprof.pipeline.Dictionary dictionary) {
        Known p = byTid.get(parent);
        Known c = byTid.get(child);
        if (p == null || c == null || !p.named) {
            return;
        }
        String name = dictionary.commName(p.comm);
        c.comm = dictionary.addComm(name, c.number);
        c.named = true;
    }

    /**
     * Whether the threads first met in {@code part} (a part of the recording read on its own) met
     * none of these as another process's: then the part found each thread's process as a reading
     * in sequence would have.
     */
    boolean agreeWith(Threads part) {
        for (int k = 0; k < part.firstSightCount; k++) {
            Known t = byTid.get((int) part.firstSights[2 * k]);
            if (t != null && t.pid != (int) part.firstSights[2 * k + 1]) {
                return false;
            }
        }
        return true;
    }

    /** Takes every thread of {@code part} as it ended there (after {@link #agreeWith}). */
    void adopt(Threads part) {
        for (Known t : part.all) {
            make(t.tid, t.pid);
        }
    }
}

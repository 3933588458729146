package org.hyperprof.source.perf;

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
 * <p>A recent-thread cache makes the common lookup two compares; no allocation but when the table grows.
 */
final class Threads {

    private static final int RECENT = 16;
    private final LongIntMap index = new LongIntMap(256);
    private int[] pids = new int[256];
    private int[] tids = new int[256];
    /** By thread: its comm id ({@link #NO_COMM} until a COMM named it or a sample needed its default name). */
    private int[] comms = new int[256];
    /** By thread: whether a COMM (or its parent's name at its FORK) named it: perf's comm_set. */
    private boolean[] named = new boolean[256];
    /** By thread: its number in the dictionary's comms, new for each thread made anew. */
    private int[] numbers = new int[256];
    private int nextNumber;
    private int count;
    /** The thread {@link #find} found last (its index). */
    private int found;
    private static final int NO_COMM = -1;
    /** (tid, pid) of a record met recently and the process it was found in; MIN_VALUE where empty. */
    private final int[] recentTid = new int[RECENT];
    private final int[] recentPid = new int[RECENT];
    private final int[] recentProcess = new int[RECENT];
    private final int[] recentIndex = new int[RECENT];

    Threads() {
        java.util.Arrays.fill(recentTid, Integer.MIN_VALUE);
        java.util.Arrays.fill(recentPid, Integer.MIN_VALUE);
        java.util.Arrays.fill(recentProcess, Integer.MIN_VALUE);
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
            found = recentIndex[slot];
            return recentProcess[slot];
        }
        return look(pid, tid, slot);
    }

    private int look(int pid, int tid, int slot) {
        int i = index.get(tid);
        int process;
        if (i == LongIntMap.ABSENT) {
            i = add(tid, pid);
            process = pid;
            if (firstSights != null) {
                if (2 * firstSightCount + 2 > firstSights.length) {
                    firstSights = java.util.Arrays.copyOf(firstSights, firstSights.length * 2);
                }
                firstSights[2 * firstSightCount] = tid;
                firstSights[2 * firstSightCount + 1] = pid;
                firstSightCount++;
            }
        } else {
            process = pids[i];
        }
        recentTid[slot] = tid;
        recentPid[slot] = pid;
        recentProcess[slot] = process;
        recentIndex[slot] = i;
        found = i;
        return process;
    }

    /** Makes thread {@code tid} anew in process {@code pid} (FORK): a thread of its own, not yet named. */
    void make(int tid, int pid) {
        int i = index.get(tid);
        if (i == LongIntMap.ABSENT) {
            i = add(tid, pid);
        } else {
            pids[i] = pid;
            renew(i);
        }
        found = i;
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
        int i = index.get(tid);
        if (i == LongIntMap.ABSENT || pids[i] != pid) {
            make(tid, pid);
        } else {
            found = i;
        }
    }

    private int add(int tid, int pid) {
        if (count == pids.length) {
            int cap = count * 2;
            pids = java.util.Arrays.copyOf(pids, cap);
            tids = java.util.Arrays.copyOf(tids, cap);
            comms = java.util.Arrays.copyOf(comms, cap);
            named = java.util.Arrays.copyOf(named, cap);
            numbers = java.util.Arrays.copyOf(numbers, cap);
        }
        pids[count] = pid;
        tids[count] = tid;
        renew(count);
        index.put(tid, count);
        return count++;
    }

    private void renew(int i) {
        comms[i] = NO_COMM;
        named[i] = false;
        numbers[i] = nextNumber++;
    }

    /** The comm id of the thread {@link #find} (or {@link #make}) found last: its name now. */
    int comm(org.hyperprof.pipeline.Dictionary dictionary) {
        int i = found;
        int c = comms[i];
        if (c == NO_COMM) {
            c = dictionary.addComm(":" + tids[i], numbers[i]);
            comms[i] = c;
        }
        return c;
    }

    /** COMM: names the thread {@link #find} found last (see the class comment). */
    void name(String name, org.hyperprof.pipeline.Dictionary dictionary) {
        int i = found;
        if (named[i]) {
            comms[i] = dictionary.addComm(name, numbers[i]);
        } else if (comms[i] == NO_COMM) {
            comms[i] = dictionary.addComm(name, numbers[i]);
        } else {
            dictionary.renameComm(comms[i], name);
        }
        named[i] = true;
    }

    /** FORK: the child {@code child} (just made) takes the name of thread {@code parent} if that was named. */
    void inheritName(int child, int parent, org.hyperprof.pipeline.Dictionary dictionary) {
        int p = index.get(parent);
        int c = index.get(child);
        if (p == LongIntMap.ABSENT || c == LongIntMap.ABSENT || !named[p]) {
            return;
        }
        String name = dictionary.commName(comms[p]);
        comms[c] = dictionary.addComm(name, numbers[c]);
        named[c] = true;
    }

    /**
     * Whether the threads first met in {@code part} (a part of the recording read on its own) met
     * none of these as another process's: then the part found each thread's process as a reading
     * in sequence would have.
     */
    boolean agreeWith(Threads part) {
        for (int k = 0; k < part.firstSightCount; k++) {
            int i = index.get(part.firstSights[2 * k]);
            if (i != LongIntMap.ABSENT && pids[i] != (int) part.firstSights[2 * k + 1]) {
                return false;
            }
        }
        return true;
    }

    /** Takes every thread of {@code part} as it ended there (after {@link #agreeWith}). */
    void adopt(Threads part) {
        for (int k = 0; k < part.count; k++) {
            make(part.tids[k], part.pids[k]);
        }
    }
}

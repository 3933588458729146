package org.hyperprof.source.perf;

/**
 * Which process each thread belongs to, as perf keeps its threads (machine.c): a record's thread
 * is looked up by its tid, and a thread met before keeps the process it was first met in whatever
 * pid a later record gives (perf's {@code machine__findnew_thread}); a FORK makes its thread anew,
 * and makes the parent thread anew in the parent process if it was in another. In a sound
 * recording every record's pid is its thread's process; a corrupt pid or tid makes perf resolve a
 * sample, or file a mapping, in the thread's process, and so does the import.
 *
 * <p>A recent-thread cache makes the common lookup two compares; no allocation but when the table grows.
 */
final class Threads {

    private static final int RECENT = 16;
    private final LongIntMap index = new LongIntMap(256);
    private int[] pids = new int[256];
    private int[] tids = new int[256];
    private int count;
    /** (tid, pid) of a record met recently and the process it was found in; MIN_VALUE where empty. */
    private final int[] recentTid = new int[RECENT];
    private final int[] recentPid = new int[RECENT];
    private final int[] recentProcess = new int[RECENT];

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
            return recentProcess[slot];
        }
        return look(pid, tid, slot);
    }

    private int look(int pid, int tid, int slot) {
        int i = index.get(tid);
        int process;
        if (i == LongIntMap.ABSENT) {
            add(tid, pid);
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
        return process;
    }

    /** Makes thread {@code tid} anew in process {@code pid} (FORK). */
    void make(int tid, int pid) {
        int i = index.get(tid);
        if (i == LongIntMap.ABSENT) {
            add(tid, pid);
        } else {
            pids[i] = pid;
        }
        int slot = tid & (RECENT - 1);
        recentTid[slot] = Integer.MIN_VALUE;
        recentPid[slot] = Integer.MIN_VALUE;
        recentProcess[slot] = Integer.MIN_VALUE;
    }

    private void add(int tid, int pid) {
        if (count == pids.length) {
            pids = java.util.Arrays.copyOf(pids, count * 2);
            tids = java.util.Arrays.copyOf(tids, count * 2);
        }
        pids[count] = pid;
        tids[count] = tid;
        index.put(tid, count++);
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

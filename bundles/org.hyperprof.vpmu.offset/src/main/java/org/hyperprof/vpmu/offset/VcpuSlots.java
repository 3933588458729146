package org.hyperprof.vpmu.offset;

import java.util.Arrays;

/**
 * Numbers guest vCPUs 0, 1, 2 ... on first sight, so per-vCPU state lives in primitive arrays
 * indexed by that slot. An open-addressing table of {@code domid << 16 | vcpu} keys; lookups never
 * allocate, and the table grows (allocating) only when a new vCPU is added. Not thread-safe.
 */
final class VcpuSlots {
    private static final long EMPTY = -1;
    private long[] keys;
    private int[] slots;
    private int[] domids = new int[16];
    private int[] vcpus = new int[16];
    private int size;

    VcpuSlots() {
        keys = new long[256];
        slots = new int[256];
        Arrays.fill(keys, EMPTY);
    }

    /** How many vCPUs have a slot (slots are 0 to {@code size() - 1}). */
    int size() {
        return size;
    }

    /** The slot of a guest vCPU, or -1 when it has none yet. */
    int find(int domid, int vcpu) {
        long key = key(domid, vcpu);
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == EMPTY) {
                return -1;
            }
            if (keys[i] == key) {
                return slots[i];
            }
        }
    }

    /** The slot of a guest vCPU, assigning the next one on first sight (which may allocate). */
    int slot(int domid, int vcpu) {
        int found = find(domid, vcpu);
        return found >= 0 ? found : add(domid, vcpu);
    }

    int domid(int slot) {
        return domids[slot];
    }

    int vcpu(int slot) {
        return vcpus[slot];
    }

    private int add(int domid, int vcpu) {
        if ((size + 1) * 2 > keys.length) {
            rehash(keys.length * 2);
        }
        int slot = size++;
        if (slot == domids.length) {
            domids = Arrays.copyOf(domids, slot * 2);
            vcpus = Arrays.copyOf(vcpus, slot * 2);
        }
        domids[slot] = domid;
        vcpus[slot] = vcpu;
        put(key(domid, vcpu), slot);
        return slot;
    }

    private void put(long key, int slot) {
        int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        slots[i] = slot;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        int[] oldSlots = slots;
        keys = new long[capacity];
        slots = new int[capacity];
        Arrays.fill(keys, EMPTY);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldSlots[i]);
            }
        }
    }

    static void checkGuest(int domid, int vcpu) {
        if (domid < 0 || domid > 0x7FFF || vcpu < 0 || vcpu > 0xFFFF) {
            throw new IllegalArgumentException("vCPU " + domid + "." + vcpu + " is no guest vCPU: domain ids run"
                    + " 0..32767 and vCPU numbers 0..65535 (domid -1 is the idle vCPU, which has no PMU)");
        }
    }

    private static long key(int domid, int vcpu) {
        return ((long) domid << 16) | vcpu;
    }

    private static int hash(long key) {
        long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h ^ (h >>> 32));
    }
}

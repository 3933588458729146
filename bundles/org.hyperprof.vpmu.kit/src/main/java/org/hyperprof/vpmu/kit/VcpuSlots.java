package org.hyperprof.vpmu.kit;

import java.util.Arrays;

/**
 * Assigns each guest vCPU a small dense slot number on first sight, so that per-vCPU state can live
 * in primitive arrays: an open-addressing map from {@code domid << 16 | vcpu} to the slot, with
 * the reverse mapping kept beside it. Lookups never allocate; adding a vCPU grows the tables only
 * when they are half full, which happens on a new vCPU only.
 *
 * <p>A helper for policies, which keep per-vCPU state without allocating in their hooks. Not
 * thread-safe: used on the simulation thread.
 */
public final class VcpuSlots {
    /** Xen's highest ordinary domain id is below DOMID_FIRST_RESERVED (0x7FF0). */
    public static final int MAX_DOMID = 0x7FEF;
    public static final int MAX_VCPU = 0xFFFF;
    private static final int EMPTY = -1;

    private int[] keys;
    private int[] slotOfKey;
    private int mask;
    private int[] domids;
    private int[] vcpus;
    private int size;

    /** Tables for about {@code expected} vCPUs; they grow when more come. */
    public VcpuSlots(int expected) {
        int capacity = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
        keys = new int[capacity];
        slotOfKey = new int[capacity];
        Arrays.fill(keys, EMPTY);
        mask = capacity - 1;
        domids = new int[capacity / 2];
        vcpus = new int[capacity / 2];
    }

    /** Number of vCPUs seen. */
    public int size() {
        return size;
    }

    /** How many slots the per-slot arrays of a user must hold now (at least {@link #size()}). */
    public int slotCapacity() {
        return domids.length;
    }

    public int domid(int slot) {
        return domids[slot];
    }

    public int vcpu(int slot) {
        return vcpus[slot];
    }

    /** The slot of a vCPU, or -1 if it was never seen. */
    public int find(int domid, int vcpu) {
        int key = key(domid, vcpu);
        int i = probe(key);
        return keys[i] == key ? slotOfKey[i] : -1;
    }

    /** The slot of a vCPU, assigning the next free one on first sight. */
    public int findOrAdd(int domid, int vcpu) {
        int key = key(domid, vcpu);
        int i = probe(key);
        return keys[i] == key ? slotOfKey[i] : add(i, key, domid, vcpu);
    }

    /** The index of {@code key} in the table, or of the empty entry where it would go. */
    private int probe(int key) {
        int i = hash(key) & mask;
        while (keys[i] != key && keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private int add(int index, int key, int domid, int vcpu) {
        int slot = size++;
        keys[index] = key;
        slotOfKey[index] = slot;
        domids[slot] = domid;
        vcpus[slot] = vcpu;
        if (size * 2 >= keys.length) {
            grow();
        }
        return slot;
    }

    private void grow() {
        int[] oldKeys = keys;
        int[] oldSlots = slotOfKey;
        keys = new int[oldKeys.length * 2];
        slotOfKey = new int[keys.length];
        Arrays.fill(keys, EMPTY);
        mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != EMPTY) {
                int i = hash(oldKeys[j]) & mask;
                while (keys[i] != EMPTY) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                slotOfKey[i] = oldSlots[j];
            }
        }
        domids = Arrays.copyOf(domids, keys.length / 2);
        vcpus = Arrays.copyOf(vcpus, keys.length / 2);
    }

    private static int hash(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /**
     * Checks that {@code domid}/{@code vcpu} names a guest vCPU.
     *
     * @throws IllegalArgumentException otherwise (the idle vCPU, -1, included)
     */
    public static void checkGuest(int domid, int vcpu) {
        key(domid, vcpu);
    }

    private static int key(int domid, int vcpu) {
        if (domid < 0 || domid > MAX_DOMID || vcpu < 0 || vcpu > MAX_VCPU) {
            throw new IllegalArgumentException("domain " + domid + " vCPU " + vcpu + " is no guest vCPU: domain ids"
                    + " run from 0 to " + MAX_DOMID + " and vCPU numbers from 0 to " + MAX_VCPU
                    + " (domid -1 means idle and is only valid in vcpuSwitch)");
        }
        return domid << 16 | vcpu;
    }
}

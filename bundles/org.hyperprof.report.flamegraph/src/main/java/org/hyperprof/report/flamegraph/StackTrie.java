package org.hyperprof.report.flamegraph;

import java.util.Arrays;

import org.hyperprof.report.kit.LongIntTable;

/**
 * Interns call stacks as paths of a prefix tree held in primitive arrays. Each node is one frame
 * under its parent; the node a stack ends at is that stack's id, so a stack seen before is found
 * again with one map lookup per frame and no allocation.
 *
 * <p>The levels below the {@link #ROOT} are fixed: first the domain (frame = domain id), then the
 * vCPU (frame = vCPU number), then the process (frame = pid) and its thread's name at the sample's
 * time (frame = comm id; both {@code -1} for a source that does not name threads), then the code frames from the outermost caller to the sampled
 * function (frame = a {@linkplain #codeFrame code frame id}). A child always gets a higher id than
 * its parent, so walking the ids upwards visits every parent before its children.
 *
 * <p>Not thread-safe: {@link StackAggregate} guards it.
 */
final class StackTrie {

    /** The node above the domains: the whole session ("all" in a flame graph). */
    static final int ROOT = 0;

    /** Depth of a domain node; vCPU nodes are at depth 2, pid 3, comm 4, code frames from depth 5 on. */
    static final int DOMAIN_DEPTH = 1;
    static final int VCPU_DEPTH = 2;
    static final int PID_DEPTH = 3;
    static final int COMM_DEPTH = 4;
    static final int FIRST_CODE_DEPTH = 5;

    private int[] parent;
    private int[] frame;
    private int[] depth;
    private int size;
    private final LongIntTable children;

    StackTrie() {
        parent = new int[256];
        frame = new int[256];
        depth = new int[256];
        parent[ROOT] = -1;
        size = 1;
        children = new LongIntTable(256);
    }

    private StackTrie(int[] parent, int[] frame, int[] depth, int size, LongIntTable children) {
        this.parent = parent;
        this.frame = frame;
        this.depth = depth;
        this.size = size;
        this.children = children;
    }

    /**
     * A code frame's id: the symbol id when the frame has a symbol, otherwise the complement of its
     * image id, so that each image keeps its own frame for the code no symbol covers.
     */
    static int codeFrame(int symbol, int image) {
        return symbol >= 0 ? symbol : ~image;
    }

    /** Packs (parent, frame) into one non-negative key: node ids never reach bit 31. */
    static long edge(int parentNode, int frameId) {
        return ((long) parentNode << 32) | (frameId & 0xFFFFFFFFL);
    }

    /** The child of {@code parentNode} for {@code frameId}, created when the stack is new. */
    int child(int parentNode, int frameId) {
        long key = edge(parentNode, frameId);
        int node = children.get(key, -1);
        if (node >= 0) {
            return node;
        }
        if (size == parent.length) {
            int n = size * 2;
            parent = Arrays.copyOf(parent, n);
            frame = Arrays.copyOf(frame, n);
            depth = Arrays.copyOf(depth, n);
        }
        node = size++;
        parent[node] = parentNode;
        frame[node] = frameId;
        depth[node] = depth[parentNode] + 1;
        children.put(key, node);
        return node;
    }

    /** Number of nodes, the root included; node ids are {@code 0 .. size() - 1}. */
    int size() {
        return size;
    }

    int parent(int node) {
        return parent[node];
    }

    /** The frame id: domain id, vCPU number, pid, comm id or code frame id, depending on the depth. */
    int frame(int node) {
        return frame[node];
    }

    int depth(int node) {
        return depth[node];
    }

    /** An independent copy for rendering while samples keep arriving. */
    StackTrie copy() {
        return new StackTrie(Arrays.copyOf(parent, size), Arrays.copyOf(frame, size), Arrays.copyOf(depth, size),
                size, children.copy());
    }
}

package org.hyperprof.web.session;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.hyperprof.api.store.DiffStack;
import org.hyperprof.web.http.Json;

/**
 * The differential stacks of two sessions as one tree for the red/blue flame graph: the root, each
 * domain, then the frames from the outermost caller (a symbol, or {@code [image]} for code no symbol
 * covers). Each node counts both sessions' samples, in total and ending there; frames are as wide as
 * B's samples, as flamegraph.pl draws a differential graph. Children by name, so the same stacks give
 * the same tree.
 */
final class DiffTree {
    /** Frames narrower than 1/20,000 of B's samples (and of A's) are left out, as in a session's graph. */
    static final long MIN_SHARE_INVERSE = 20_000;

    static final class Node {
        final String name;
        final String kind;
        long totalA;
        long totalB;
        long selfA;
        long selfB;
        final Map<String, Node> children = new TreeMap<>();

        Node(String name, String kind) {
            this.name = name;
            this.kind = kind;
        }

        Node child(String name, String kind) {
            return children.computeIfAbsent(kind + "\u0000" + name, k -> new Node(name, kind));
        }
    }

    private final Node root = new Node("all", "all");

    static DiffTree of(List<DiffStack> stacks) {
        DiffTree t = new DiffTree();
        for (DiffStack s : stacks) {
            Node n = t.root;
            add(n, s);
            n = n.child(s.domain(), "dom");
            add(n, s);
            for (DiffStack.Frame f : s.frames()) {
                String kind = f.kind() == null ? "unk" : switch (f.kind()) {
                    case HYPERVISOR -> "hyp";
                    case KERNEL, MODULE -> "ker";
                    case USER -> "usr";
                    default -> "unk";
                };
                n = n.child(f.symbol() == null ? "[" + f.image() + "]" : f.symbol(), kind);
                add(n, s);
            }
            n.selfA += s.baseline();
            n.selfB += s.compared();
        }
        return t;
    }

    private static void add(Node n, DiffStack s) {
        n.totalA += s.baseline();
        n.totalB += s.compared();
    }

    Node root() {
        return root;
    }

    /** {@code {"totalA","totalB","frames":[[name,kind],...],"nodes":[frame,totalB,totalA,selfB,selfA,children,...]}}. */
    void write(Json json) {
        Map<String, Integer> frames = new HashMap<>();
        List<String[]> frameList = new ArrayList<>();
        StringBuilder nodes = new StringBuilder();
        long minB = root.totalB / MIN_SHARE_INVERSE;
        long minA = root.totalA / MIN_SHARE_INVERSE;
        int[] leftOut = new int[1];
        walk(root, frames, frameList, nodes, minA, minB, leftOut);
        json.beginObject().member("totalA", root.totalA).member("totalB", root.totalB).member("leftOut", leftOut[0])
                .name("frames").beginArray();
        for (String[] f : frameList) {
            json.beginArray().value(f[0]).value(f[1]).endArray();
        }
        json.endArray().name("nodes").raw("[" + nodes + "]").endObject();
    }

    private static void walk(Node n, Map<String, Integer> frames, List<String[]> frameList, StringBuilder nodes,
            long minA, long minB, int[] leftOut) {
        Integer f = frames.get(n.kind + "\u0000" + n.name);
        if (f == null) {
            f = frameList.size();
            frames.put(n.kind + "\u0000" + n.name, f);
            frameList.add(new String[] {n.name, n.kind});
        }
        List<Node> kept = new ArrayList<>();
        for (Node c : n.children.values()) {
            if ((c.totalB > 0 && c.totalB >= minB) || (c.totalA > 0 && c.totalA >= minA && c.totalB >= minB)) {
                kept.add(c);
            } else {
                leftOut[0]++;
            }
        }
        if (nodes.length() > 0) {
            nodes.append(',');
        }
        nodes.append(f).append(',').append(n.totalB).append(',').append(n.totalA).append(',').append(n.selfB)
                .append(',').append(n.selfA).append(',').append(kept.size());
        for (Node c : kept) {
            walk(c, frames, frameList, nodes, minA, minB, leftOut);
        }
    }
}

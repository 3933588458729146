package org.hyperprof.hypervisor.xenoprof;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** The last lines Xenoprof printed on Xen's console ({@code (XEN) ...}); written and read under the core's lock. */
final class XenConsole {
    private static final int LINES = 64;

    private final Deque<String> lines = new ArrayDeque<>();

    void print(String line) {
        if (lines.size() == LINES) {
            lines.removeFirst();
        }
        lines.addLast(line);
    }

    List<String> lines() {
        return new ArrayList<>(lines);
    }
}

package org.hyperprof.report.flamegraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffStack;
import org.hyperprof.api.store.StoredSession;
import org.hyperprof.api.store.StoredStack;
import org.junit.jupiter.api.Test;

/**
 * A stored session's flame graph drawn from the stacks the store sums is the graph its replay draws:
 * the same nodes in the same order with the same counts, the same frames with the same colours.
 */
class StoredFlameTest {

    /** The stacks a store would sum for {@link NetworkStacks}' session: its folded lines, as stored stacks. */
    private static List<StoredStack> stacks() {
        List<StoredStack> out = new ArrayList<>();
        for (String line : NetworkStacks.FOLDED.strip().split("\n")) {
            String[] names = line.substring(0, line.lastIndexOf(' ')).split(";");
            long samples = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            List<DiffStack.Frame> frames = new ArrayList<>();
            for (int i = 1; i < names.length; i++) {
                String n = names[i];
                ImageKind kind = n.endsWith("_[x]") ? ImageKind.HYPERVISOR
                        : n.endsWith("_[k]") ? ImageKind.KERNEL : ImageKind.USER;
                n = kind == ImageKind.USER ? n : n.substring(0, n.length() - 4);
                boolean unnamed = n.startsWith("[");
                frames.add(new DiffStack.Frame(unnamed ? n.substring(1, n.length() - 1) : "image", kind,
                        unnamed ? null : n));
            }
            out.add(new StoredStack(names[0].equals("Domain-0") ? 0 : 1, names[0], null, frames, samples));
        }
        return out;
    }

    private static StoredSession session(long id) {
        return new StoredSession(id, "host", "simulator", null, List.of(), "net", "i386/p6",
                List.of("CPU_CLK_UNHALTED:100000:0"), Instant.EPOCH, Instant.EPOCH, StoredSession.COMPLETED, 150,
                null, 150, 0, List.of(), null, false, List.of(), -1);
    }

    private static String nodes(String json) {
        Matcher m = Pattern.compile("\"nodes\":\\[([^\\]]*)\\]").matcher(json);
        assertTrue(m.find(), json);
        return m.group(1);
    }

    /** Each frame's name, kind and fill (the images a frame lies in are named by the store, not compared). */
    private static List<String> frames(String json) {
        Matcher m = Pattern.compile("\\[(\"[^\"]+\",\\d+,\"rgb\\(\\d+,\\d+,\\d+\\)\")").matcher(json);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void theStoredStacksDrawTheTreeTheReplayDraws() throws Exception {
        FlameGraphConsumer consumer = new NetworkStacks(1).completed();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        consumer.content(ReportRequest.latest(), "json").writeTo(out);
        String replayed = out.toString(StandardCharsets.UTF_8);

        List<StoredStack> stacks = stacks();
        String stored = PathFlame.json(stacks, session(1), 0, ReportRequest.ALL_DOMAINS);

        assertEquals(nodes(replayed), nodes(stored), "every node, its total, self and children");
        assertEquals(frames(replayed), frames(stored));
        assertTrue(frames(stored).size() > 10, stored);
        assertTrue(stored.contains("\"population\":\"CPU_CLK_UNHALTED every 100000 events (counter 0), all domains:"
                + " 150 samples\""), stored);
        assertTrue(stored.contains("\"counter\":\"CPU_CLK_UNHALTED\""), stored);
    }

    @Test
    void repeatedFramesWithoutASymbolFoldIntoOneAsInAReplay() throws Exception {
        DiffStack.Frame unknown = new DiffStack.Frame("(unknown)", ImageKind.UNKNOWN, null);
        DiffStack.Frame main = new DiffStack.Frame("app", ImageKind.USER, "main");
        FlameTree tree = StoredTree.of(List.of(new StoredStack(0, "Domain-0", "app (7)",
                List.of(unknown, unknown, unknown, main), 4)), 0, ReportRequest.ALL_DOMAINS);
        assertEquals(2, tree.folded());
        assertEquals(4, tree.maxDepth(), "all, domain, process, [unknown], main");
        FlameTree.Node process = tree.root().children.get(0).children.get(0);
        assertEquals(List.of("app (7)", "[unknown]"), List.of(process.name, process.children.get(0).name));
    }
}

package org.hyperprof.testing.clickhouse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces a test makes (root only, iproute2's {@code ip}), each joined to the test's own
 * namespace by a veth pair: the namespace's end {@code 10.213.<n>.2/30}, the test's end
 * {@code 10.213.<n>.1/30}, nothing else routed. The names carry a tag unique to the run; namespaces of
 * runs that died are removed first, and every one made is removed by {@link #close()}, so a leftover
 * never breaks the next run on a reused machine.
 */
public final class TestNamespaces implements AutoCloseable {
    /** The names' prefix: what is removed at the start, whatever run left it. */
    public static final String PREFIX = "hpfleet-";

    /** One namespace: its name, the test's end of its veth and both ends' addresses. */
    public record Namespace(String name, String vethOutside, String outsideAddress, String insideAddress) {
    }

    private final List<Namespace> made = new ArrayList<>();

    private TestNamespaces() {
    }

    /** Whether this process may make namespaces: root, with {@code ip}. */
    public static boolean possible() {
        try {
            return run("id", "-u").strip().equals("0") && run("ip", "-V").contains("iproute2");
        } catch (IOException e) {
            return false;
        }
    }

    /** Removes the namespaces of earlier runs, then makes {@code count} namespaces. */
    public static TestNamespaces make(int count) throws IOException {
        for (String line : run("ip", "netns", "list").split("\n")) {
            String name = line.strip().split(" ")[0];
            if (name.startsWith(PREFIX)) {
                run("ip", "netns", "del", name);
            }
        }
        TestNamespaces n = new TestNamespaces();
        String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        try {
            for (int i = 1; i <= count; i++) {
                String name = PREFIX + tag + "-" + i;
                String outside = "hpf" + tag + "o" + i; // at most 15 characters, as Linux wants
                String inside = "hpf" + tag + "i" + i;
                String out = "10.213." + i + ".1";
                String in = "10.213." + i + ".2";
                run("ip", "netns", "add", name);
                n.made.add(new Namespace(name, outside, out, in));
                run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
                run("ip", "link", "set", inside, "netns", name);
                run("ip", "addr", "add", out + "/30", "dev", outside);
                run("ip", "link", "set", outside, "up");
                run("ip", "netns", "exec", name, "ip", "addr", "add", in + "/30", "dev", inside);
                run("ip", "netns", "exec", name, "ip", "link", "set", inside, "up");
                run("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up");
            }
        } catch (IOException | RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    public List<Namespace> namespaces() {
        return List.copyOf(made);
    }

    /** The command that runs {@code command} inside namespace {@code n}. */
    public static List<String> inside(Namespace n, List<String> command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", n.name()));
        all.addAll(command);
        return all;
    }

    /** Takes the namespace's link down (its host loses the network) or brings it back up. */
    public void link(Namespace n, boolean up) throws IOException {
        run("ip", "link", "set", n.vethOutside(), up ? "up" : "down");
    }

    private static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return out;
    }

    /** Deletes the namespaces made (their veth pairs go with them). */
    @Override
    public void close() {
        for (Namespace n : made) {
            try {
                run("ip", "netns", "del", n.name());
            } catch (IOException e) {
                // Gone already; the next run removes what is left.
            }
        }
        made.clear();
    }
}

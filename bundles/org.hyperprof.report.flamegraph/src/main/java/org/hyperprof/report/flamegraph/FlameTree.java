package org.hyperprof.report.flamegraph;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionDictionary;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.report.kit.RowFilter;

/**
 * The stacks of one counter as named frames, ready to print: the interned stacks of a
 * {@link StackAggregate.Snapshot} with domain, vCPU and code frames turned into names, and frames
 * whose printed names are equal merged (two stacks that print the same are one stack, as folded
 * stacks have one line per distinct stack). Built when a report is asked for, off the sample path.
 *
 * <h2>Frame names</h2>
 * <ul>
 * <li>The root frame of every stack is the domain's name ({@code Domain-0}); with the
 * {@code vcpus} option a {@code vcpuN} frame follows.</li>
 * <li>For a source that names threads (a perf.data import) the process follows, as
 * {@code comm (pid)}: the name the sample's thread had then (perf's comm) and its process id;
 * threads of one process with one name are one frame. Other sources have no such frame.</li>
 * <li>Then the code frames, from the outermost caller down to the sampled function: the symbol
 * name, or {@code [image]} for code no symbol covers (the image {@code (unknown)}, which stands for
 * a PC no mapping covers, becomes {@code [unknown]}).</li>
 * <li>Each code frame carries its {@link FrameKind#suffix kind suffix}: {@code _[x]} hypervisor,
 * {@code _[k]} kernel or module, none for user code.</li>
 * <li>A {@code ;} inside a name would split the frame, so it becomes {@code :}; control characters
 * (which would break the one-line-per-stack format) become {@code ?}.</li>
 * <li>A frame without a symbol ({@code [image]}) right above the same one is folded into it: code
 * built without frame pointers leaves garbage call chains of a hundred {@code [unknown]} frames,
 * which would make the graph thousands of pixels tall with the data below the fold. Named frames
 * are never folded (recursion stays visible); the SVG says how many frames were folded.</li>
 * </ul>
 * Children are ordered by name, so the tree and the folded lines come out the same for the same
 * samples, whatever order they arrived in.
 *
 * @param info     the session; null for a tree of stored stacks (the tests' reference drawing of {@link PathFlame})
 * @param counter  the counter whose samples the tree counts
 * @param domain   the domain it shows, or {@link ReportRequest#ALL_DOMAINS}
 * @param root     the whole-session frame
 * @param maxDepth depth of the deepest frame (the root is depth 0)
 * @param folded   the frames without a symbol folded into the same frame above them
 */
record FlameTree(SessionInfo info, int counter, int domain, Node root, int maxDepth, int folded) {

    /** One frame with everything drawn or printed below it. */
    static final class Node {
        final String name;
        final FrameKind kind;
        final int depth;
        /**
         * The images the frame's code lies in (none for domain, vCPU and the whole session): the first
         * alone, a set only from a second one. A large profile has hundreds of thousands of frames, nearly
         * all in one image and leaves: each collection made only when needed keeps the tree small enough
         * that building it is not mostly copying it between the collector's generations.
         */
        private String image;
        private TreeSet<String> images;
        long self;
        long total;
        /** Of a differential flame graph: the samples that ended here in the baseline (self counts the compared session's). */
        long baseline;
        /** A code frame no symbol covers, named {@code [image]}. */
        boolean unnamed;
        List<Node> children = List.of();
        /** Made from the {@value #FOUND_BY_NAME}th child on: most frames have a few children or none. */
        private Map<String, Node> byFoldedName;

        /** The name plus the kind's suffix, made once: children are found and sorted by it. */
        private final String foldedName;

        Node(String name, FrameKind kind, int depth) {
            this(name, name + kind.suffix, kind, depth);
        }

        private Node(String name, String foldedName, FrameKind kind, int depth) {
            this.name = name;
            this.foldedName = foldedName;
            this.kind = kind;
            this.depth = depth;
        }

        /** The name as folded stacks print it: the name plus the kind's suffix. */
        String foldedName() {
            return foldedName;
        }

        Node child(String childName, FrameKind childKind) {
            return child(childName, childName + childKind.suffix, childKind);
        }

        /** The child of that name and folded name ({@code childName} plus the kind's suffix), made if new. */
        Node child(String childName, String childFoldedName, FrameKind childKind) {
            Node c = byFoldedName != null ? byFoldedName.get(childFoldedName) : scan(childFoldedName);
            if (c == null) {
                c = new Node(childName, childFoldedName, childKind, depth + 1);
                if (children.isEmpty()) {
                    children = new ArrayList<>(2);
                }
                children.add(c);
                if (byFoldedName != null) {
                    byFoldedName.put(childFoldedName, c);
                } else if (children.size() >= FOUND_BY_NAME) {
                    byFoldedName = new HashMap<>(FOUND_BY_NAME * 4);
                    for (Node n : children) {
                        byFoldedName.put(n.foldedName, n);
                    }
                }
            }
            return c;
        }

        private Node scan(String childFoldedName) {
            for (int i = 0; i < children.size(); i++) {
                Node c = children.get(i);
                if (c.foldedName.equals(childFoldedName)) {
                    return c;
                }
            }
            return null;
        }

        /** Adds an image the frame's code lies in. */
        void addImage(String imageName) {
            if (image == null) {
                image = imageName;
            } else if (!image.equals(imageName) && (images == null || !images.contains(imageName))) {
                if (images == null) {
                    images = new TreeSet<>();
                    images.add(image);
                }
                images.add(imageName);
            }
        }

        boolean hasImages() {
            return image != null;
        }

        /** The images in words (in order of their names), for hover details. */
        String imagesInWords() {
            return images != null ? String.join(", ", images) : image != null ? image : "";
        }
    }

    /** Children a frame finds by a scan before it keeps a map of them by name. */
    private static final int FOUND_BY_NAME = 8;

    long total() {
        return root.total;
    }

    /**
     * The named stacks of {@code options.counter()}, all domains or only {@code domain}.
     *
     * @throws ReportException when the counter is not the session's, or there is no sample to show
     */
    static FlameTree build(StackAggregate.Snapshot snapshot, FlameOptions options, int domain)
            throws ReportException {
        SessionInfo info = snapshot.info();
        int counters = snapshot.selfSamples().length;
        if (options.counter() >= counters) {
            throw new ReportException("session " + info.sessionId() + " has " + counters + " counter"
                    + (counters == 1 ? "" : "s") + " (" + counterList(info) + "); there is no counter "
                    + options.counter() + ", ask for counter=0" + (counters > 1 ? " to counter=" + (counters - 1) : ""));
        }
        StackTrie trie = snapshot.trie();
        long[] self = snapshot.selfSamples()[options.counter()];
        SessionDictionary dictionary = info.dictionary();
        Node root = new Node("all", FrameKind.ALL, 0);
        Node[] named = new Node[trie.size()];
        named[StackTrie.ROOT] = root;
        RowFilter filter = options.filter();
        int folded = 0;
        // Parents have lower ids than their children, so one upward pass names every node.
        for (int n = StackTrie.ROOT + 1; n < trie.size(); n++) {
            Node parent = named[trie.parent(n)];
            if (parent == null) {
                continue;
            }
            int frame = trie.frame(n);
            int depth = trie.depth(n);
            Node node;
            boolean kept = true;
            if (depth == StackTrie.DOMAIN_DEPTH) {
                node = domain == ReportRequest.ALL_DOMAINS || domain == frame
                        ? parent.child(clean(info.domainName(frame)), FrameKind.DOMAIN)
                        : null;
            } else if (depth == StackTrie.PID_DEPTH) {
                node = parent; // named with its comm, one level down
            } else if (depth == StackTrie.COMM_DEPTH) {
                node = frame == SampleBatch.UNKNOWN ? parent
                        : parent.child(clean(process(dictionary, frame, trie.frame(trie.parent(n)))), FrameKind.PROCESS);
            } else if (depth == StackTrie.VCPU_DEPTH) {
                node = !filter.keepsVcpu(frame) ? null
                        : options.vcpus() ? parent.child("vcpu" + frame, FrameKind.VCPU) : parent;
            } else {
                int image = frame >= 0 ? dictionary.symbolImage(frame) : ~frame;
                FrameKind kind = FrameKind.of(dictionary.imageKind(image));
                String imageName = dictionary.imageName(image);
                String name = frame >= 0 ? dictionary.shownName(frame) : null;
                boolean unnamed = name == null || name.isBlank();
                String frameName = unnamed ? bracketed(imageName) : clean(name);
                if (unnamed && parent.kind == kind && parent.unnamed && parent.name.equals(frameName)) {
                    node = parent;
                    folded++;
                } else {
                    node = parent.child(frameName, kind);
                    node.unnamed = unnamed;
                }
                node.addImage(clean(imageName));
                // the filter chooses samples by their own frame: a node's self samples are those it is the
                // leaf of; as a caller it stays for the stacks below it
                kept = filter.keeps(imageName, frame >= 0 && name != null ? name : RowFilter.NO_SYMBOLS);
            }
            named[n] = node;
            if (node != null && kept) {
                node.self += self[n];
            }
        }
        int maxDepth = settle(root);
        if (root.total == 0 && !filter.all() && snapshot.samples() > 0) {
            throw new ReportException("the filter " + filter.describe() + " leaves no sample of counter "
                    + options.counter() + (domain == ReportRequest.ALL_DOMAINS ? "" : " in domain " + domain)
                    + " to draw; loosen it");
        }
        if (root.total == 0) {
            throw new ReportException(nothingToShow(snapshot, options.counter(), domain));
        }
        return new FlameTree(info, options.counter(), domain, root, maxDepth, folded);
    }

    /** {@code comm (pid)}, with {@code ?} for a comm the dictionary does not name. */
    private static String process(SessionDictionary dictionary, int comm, int pid) {
        String name = dictionary.commName(comm);
        return (name != null ? name : "?") + " (" + pid + ")";
    }

    /** Totals, drops frames without samples, orders children by name; answers the deepest depth. */
    static int settle(Node node) {
        long total = node.self;
        int deepest = node.depth;
        List<Node> kept = node.children.isEmpty() ? List.of() : new ArrayList<>(node.children.size());
        for (Node c : node.children) {
            int d = settle(c);
            if (c.total > 0) {
                kept.add(c);
                total += c.total;
                deepest = Math.max(deepest, d);
            }
        }
        if (kept.size() > 1) {
            kept.sort(Comparator.comparing(Node::foldedName));
        }
        node.children = kept;
        node.byFoldedName = null;
        node.total = total;
        return deepest;
    }

    /** A name fit for one folded frame (see the class comment). */
    static String clean(String name) {
        if (name == null || name.isEmpty()) {
            return "?";
        }
        StringBuilder b = null;
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            char replacement = ch == ';' ? ':' : Character.isISOControl(ch) ? '?' : ch;
            if (replacement != ch && b == null) {
                b = new StringBuilder(name.substring(0, i));
            }
            if (b != null) {
                b.append(replacement);
            }
        }
        return b == null ? name : b.toString();
    }

    /** {@code [image]} for code no symbol covers; an image already named in brackets or parentheses keeps one pair. */
    static String bracketed(String imageName) {
        String name = clean(imageName);
        if (name.length() >= 2 && (name.startsWith("(") && name.endsWith(")")
                || name.startsWith("[") && name.endsWith("]"))) {
            name = name.substring(1, name.length() - 1);
        }
        return "[" + name + "]";
    }

    private static String nothingToShow(StackAggregate.Snapshot snapshot, int counter, int domain) {
        SessionInfo info = snapshot.info();
        String session = "session " + info.sessionId();
        if (snapshot.samples() == 0) {
            String books = snapshot.summary() == null ? "it is still running; try again when samples arrive"
                    : "it ended (" + snapshot.summary().endReason() + ") with " + snapshot.summary().accounting().line();
            String rejected = snapshot.rejectedSamples() == 0 ? ""
                    : "; " + snapshot.rejectedSamples() + " samples were rejected, first: " + snapshot.firstRejection();
            return "the flame graph has no samples of " + session + " (" + snapshot.batches() + " batches received): "
                    + books + rejected + ". Profile for longer or with a smaller count, then write it again";
        }
        Map<String, Long> byDomain = samplesByDomain(snapshot, counter);
        if (domain != ReportRequest.ALL_DOMAINS && !byDomain.isEmpty()) {
            return "domain " + domain + " (" + info.domainName(domain) + ") has no samples of counter " + counter
                    + " in " + session + "; the domains with samples are "
                    + byDomain.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + " samples)")
                            .collect(Collectors.joining(", "))
                    + "; ask for one of them or for all domains";
        }
        return session + " has no samples of counter " + counter + " (" + counterName(info, counter) + ") but "
                + snapshot.samples() + " of its other counters; ask for one of those with counter=N ("
                + counterList(info) + ")";
    }

    /** Domain "id name" to its samples of {@code counter}, for error messages. */
    private static Map<String, Long> samplesByDomain(StackAggregate.Snapshot snapshot, int counter) {
        StackTrie trie = snapshot.trie();
        long[] self = snapshot.selfSamples()[counter];
        Map<String, Long> byDomain = new TreeMap<>();
        for (int n = StackTrie.ROOT + 1; n < trie.size(); n++) {
            if (self[n] == 0) {
                continue;
            }
            int d = n;
            while (trie.depth(d) > StackTrie.DOMAIN_DEPTH) {
                d = trie.parent(d);
            }
            int domid = trie.frame(d);
            byDomain.merge(domid + " " + snapshot.info().domainName(domid), self[n], Long::sum);
        }
        return byDomain;
    }

    static String counterName(SessionInfo info, int counter) {
        return counter < info.counters().size() ? info.counters().get(counter).event().name() : "none";
    }

    private static String counterList(SessionInfo info) {
        List<String> names = new ArrayList<>();
        for (int c = 0; c < info.counters().size(); c++) {
            names.add(c + " " + counterName(info, c));
        }
        return String.join(", ", names);
    }
}

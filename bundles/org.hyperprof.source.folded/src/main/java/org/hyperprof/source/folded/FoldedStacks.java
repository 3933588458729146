package org.hyperprof.source.folded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.source.SampleFeed;
import org.hyperprof.api.source.SampleSource;
import org.hyperprof.api.source.SourceFormatException;
import org.hyperprof.input.InputFile;
import org.osgi.service.component.annotations.Component;

/**
 * Folded stacks, the input of Brendan Gregg's flamegraph.pl that many tools write
 * ({@code stackcollapse-perf.pl}, async-profiler, {@code hp:export flamegraph folded}): one stack per
 * line, frames root first and separated by {@code ;}, then a space and how many samples had it.
 *
 * <p>Each count becomes that many samples (weight 1) with the stack's leaf as the sample and the other
 * frames as its callers. A frame's {@code _[k]} suffix (stackcollapse's kernel mark) puts it in the
 * kernel image and a leaf so marked in kernel mode; {@code module`function} (DTrace) names its
 * image; other frames belong to one image named after the file. Folded stacks carry no addresses:
 * every PC is 0. As flamegraph.pl does, a line that is not a stack and a count is skipped; unlike it,
 * Hyperprof says so (the first such line and how many, in the notes), and a file with no stack at all
 * is refused.
 */
@Component(property = SampleSource.NAME + "=folded")
public final class FoldedStacks implements SampleSource {
    /** Samples one file may hold in all: each is made, so a count beyond this would never end. */
    static final long MAX_SAMPLES = 1_000_000_000L;
    private static final String KERNEL_MARK = "_[k]";
    private static final String KERNEL_IMAGE = "[kernel.kallsyms]";

    @Override
    public String description() {
        return "folded stacks (flamegraph.pl's input: \"root;caller;leaf count\" per line)";
    }

    @Override
    public void read(Path file, SampleFeed feed) throws IOException {
        new Reading(file, feed).run();
    }

    /** A frame's image and symbol ids and its mode (1 for a kernel frame, else 0). */
    private record Frame(int image, int symbol, int mode) {
    }

    /** One file's read: its frames (by text), and what it skipped. */
    private static final class Reading {
        private final Path file;
        private final SampleFeed feed;
        private final Map<String, Frame> frames = new HashMap<>();
        private final Map<String, Integer> images = new HashMap<>();
        /** The current line's frames, root first. */
        private Frame[] stack = new Frame[64];
        private long samples;
        private long stacks;
        private long skipped;
        private long firstSkipped;

        Reading(Path file, SampleFeed feed) {
            this.file = file;
            this.feed = feed;
        }

        void run() throws IOException {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(InputFile.open(file, "folded stacks"),
                    StandardCharsets.UTF_8))) {
                long lineNo = 0;
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lineNo++;
                    if (!line.isBlank() && !stackLine(line.strip(), lineNo)) {
                        skipped++;
                        firstSkipped = firstSkipped == 0 ? lineNo : firstSkipped;
                    }
                }
            }
            if (skipped > 0 && stacks == 0) {
                throw new SourceFormatException(file.toString(), "line", firstSkipped, "expected folded stacks"
                        + " (\"root;caller;leaf count\" per line) and found no such line in " + skipped + " lines;"
                        + " is this the output of a stackcollapse script?");
            }
            if (skipped > 0) {
                feed.note(skipped + " lines that are not a stack and a count were skipped, as flamegraph.pl skips"
                        + " them (the first: line " + firstSkipped + ")");
            }
        }

        /** Reads one stack line into samples; false when it is not a stack and a count. */
        private boolean stackLine(String line, long lineNo) throws SourceFormatException {
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                return false;
            }
            long count;
            try {
                count = Long.parseLong(line.substring(space + 1));
            } catch (NumberFormatException e) {
                return false;
            }
            if (count < 0) {
                return false;
            }
            if (count > MAX_SAMPLES - samples) {
                throw new SourceFormatException(file.toString(), "line", lineNo, "the counts add up to more than "
                        + MAX_SAMPLES + " samples, and each is made one by one; scale the counts down (divide"
                        + " them) or split the file");
            }
            String frameList = line.substring(0, space).strip();
            int depth = 0;
            for (int from = 0; from <= frameList.length();) {
                int semi = frameList.indexOf(';', from);
                int to = semi < 0 ? frameList.length() : semi;
                if (to > from) {
                    if (depth == stack.length) {
                        stack = Arrays.copyOf(stack, depth * 2);
                    }
                    stack[depth++] = frame(frameList.substring(from, to));
                }
                from = to + 1;
            }
            if (depth == 0) {
                feed.invalid(count, "a line with a count but no frames");
                return true;
            }
            stacks++;
            samples += count;
            Frame leaf = stack[depth - 1];
            for (long n = 0; n < count; n++) {
                feed.sample(0, 0, leaf.mode(), 0, 0, leaf.image(), leaf.symbol(), 1, -1, -1, -1, -1);
                for (int c = depth - 2; c >= 0; c--) {
                    feed.caller(0, stack[c].image(), stack[c].symbol(), stack[c].mode());
                }
                feed.end();
            }
            return true;
        }

        /** A frame, its image and symbol made the first time it is met. */
        private Frame frame(String text) {
            Frame known = frames.get(text);
            if (known != null) {
                return known;
            }
            boolean kernel = text.endsWith(KERNEL_MARK);
            String name = kernel ? text.substring(0, text.length() - KERNEL_MARK.length()) : text;
            String image = kernel ? KERNEL_IMAGE : file.getFileName().toString();
            int tick = name.indexOf('`');
            if (!kernel && tick > 0 && tick < name.length() - 1) {
                image = name.substring(0, tick);
                name = name.substring(tick + 1);
            }
            Integer img = images.get(image);
            if (img == null) {
                img = feed.image(image, kernel ? ImageKind.KERNEL : ImageKind.USER, 0);
                images.put(image, img);
            }
            Frame f = new Frame(img, feed.symbol(name, img), kernel ? 1 : 0);
            frames.put(text, f);
            return f;
        }
    }
}

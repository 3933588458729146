package org.hyperprof.testing.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.source.SampleFeed;
import org.hyperprof.api.source.SampleSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules every sample source keeps (the {@link SampleSource} and {@link SampleFeed} javadoc). A
 * source bundle's test extends this class with its source, a file of its format with samples, and
 * content that is not its format.
 */
public abstract class SourceContract {

    @TempDir
    protected Path dir;

    protected abstract SampleSource newSource();

    /** A file of the source's format holding at least one sample, written into {@code dir}. */
    protected abstract Path fileWithSamples(Path dir) throws IOException;

    /** Bytes that are not the source's format. */
    protected abstract byte[] notTheFormat();

    /** A feed that checks the order the SPI asks for and writes down what it was fed. */
    static final class CheckingFeed implements SampleFeed {
        final List<String> fed = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        private int images;
        private final List<Integer> symbolImages = new ArrayList<>();
        private boolean open;
        private boolean sampled;
        long samples;

        private void problem(String p) {
            if (problems.size() < 10) {
                problems.add(p);
            }
        }

        @Override
        public void domain(int domid, String name) {
            if (sampled) {
                problem("domain " + domid + " named after the first sample");
            }
        }

        @Override
        public void counter(int number, String event, long period) {
            if (sampled) {
                problem("counter " + number + " declared after the first sample");
            }
            if (period < 1 || number < 0 || number > 255) {
                problem("counter " + number + " with period " + period);
            }
        }

        @Override
        public int image(String name, ImageKind kind, int domid) {
            if (name == null || name.isEmpty() || kind == null) {
                problem("an image without a name or kind: " + name + " " + kind);
            }
            return images++;
        }

        @Override
        public int symbol(String name, int image) {
            if (image < 0 || image >= images) {
                problem("symbol " + name + " of image " + image + ", which was never named");
            }
            symbolImages.add(image);
            return symbolImages.size() - 1;
        }

        @Override
        public void process(int domid, int pid, String name) {
        }

        private void ids(String what, int image, int symbol) {
            if (image < 0 || image >= images) {
                problem(what + " of image " + image + ", which was never named");
            } else if (symbol != -1 && (symbol < 0 || symbol >= symbolImages.size())) {
                problem(what + " of symbol " + symbol + ", which was never named");
            } else if (symbol != -1 && symbolImages.get(symbol) != image) {
                problem(what + ": symbol " + symbol + " belongs to image " + symbolImages.get(symbol) + ", not " + image);
            }
        }

        @Override
        public void sample(int domid, int vcpu, int mode, int counter, long pc, int image, int symbol, long weight,
                long time, int cpu, int pid, int tid) {
            if (open) {
                problem("a sample started before the one before it ended");
            }
            if (weight < 1 || mode < 0 || mode > 2) {
                problem("a sample of weight " + weight + " in mode " + mode);
            }
            ids("a sample", image, symbol);
            open = true;
            sampled = true;
            fed.add(domid + " " + mode + " " + counter + " " + image + ":" + symbol + " w" + weight);
        }

        @Override
        public void flag(int flag) {
            if (flag != SampleBatch.CHAIN_FROM_PC && flag != SampleBatch.MODE_UNKNOWN) {
                problem("flag " + flag + ", which is not one of a sample's flags");
            }
            if (!open) {
                problem("flag " + flag + " with no sample started");
            } else {
                fed.set(fed.size() - 1, fed.get(fed.size() - 1) + " flag" + flag);
            }
        }

        @Override
        public void caller(long pc, int image, int symbol, int mode) {
            if (!open) {
                problem("a caller with no sample started");
            }
            if (mode < -1 || mode > 2) {
                problem("a caller in mode " + mode + " (0 user, 1 kernel, 2 hypervisor, -1 unknown)");
            }
            ids("a caller", image, symbol);
            fed.set(fed.size() - 1, fed.get(fed.size() - 1) + " <- " + image + ":" + symbol);
        }

        @Override
        public void mapping(int domid, int pid, int image, long start, long limit, long fileOffset) {
            if (open) {
                problem("a mapping inside a sample");
            }
            if (image < 0 || image >= images) {
                problem("a mapping of image " + image + ", which was never named");
            }
            if (Long.compareUnsigned(limit, start) < 0) {
                problem("a mapping of image " + image + " that ends before it starts");
            }
        }

        @Override
        public void buildId(int image, String hex) {
            if (image < 0 || image >= images) {
                problem("a build-id of image " + image + ", which was never named");
            }
            if (hex == null || !hex.matches("[0-9a-fA-F]{2,128}")) {
                problem("build-id " + hex + " of image " + image + " is not hex");
            }
        }

        @Override
        public void end() {
            if (!open) {
                problem("end() with no sample started");
            }
            open = false;
            samples++;
        }

        @Override
        public void invalid(long count, String why) {
            if (count < 0 || why == null || why.isBlank()) {
                problem("invalid(" + count + ", " + why + ")");
            }
        }

        @Override
        public void note(String line) {
            if (line == null || line.isBlank()) {
                problem("an empty note");
            }
        }
    }

    @Test
    public void aFileIsReadNamesFirstEachSampleEndedAndTheSameEachTime() throws Exception {
        Path file = fileWithSamples(dir);
        CheckingFeed first = new CheckingFeed();
        newSource().read(file, first);
        assertEquals(List.of(), first.problems);
        assertTrue(first.samples > 0, "the file holds samples, and none were fed");
        CheckingFeed again = new CheckingFeed();
        newSource().read(file, again);
        assertEquals(first.fed, again.fed, "a second read of the same file fed other samples");
    }

    @Test
    public void contentThatIsNotTheFormatIsRefusedNamingTheFile() throws Exception {
        Path file = dir.resolve("not-the-format");
        Files.write(file, notTheFormat());
        CheckingFeed feed = new CheckingFeed();
        IOException e = assertThrows(IOException.class, () -> newSource().read(file, feed));
        assertTrue(String.valueOf(e.getMessage()).contains(file.toString()), "the message names the file: "
                + e.getMessage());
        assertEquals(List.of(), feed.problems);
    }

    @Test
    public void aNamedPipeIsRefusedAtOnceNotWaitedOn() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, p.waitFor());
        CheckingFeed feed = new CheckingFeed();
        IOException e = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> assertThrows(IOException.class, () -> newSource().read(fifo, feed)));
        assertTrue(String.valueOf(e.getMessage()).contains(fifo.toString()), e.getMessage());
        assertFalse(feed.samples > 0);
    }

    @Test
    public void aMissingFileIsRefusedNamingIt() {
        Path missing = dir.resolve("missing");
        IOException e = assertThrows(IOException.class, () -> newSource().read(missing, new CheckingFeed()));
        assertTrue(String.valueOf(e.getMessage()).contains(missing.toString()), e.getMessage());
    }
}

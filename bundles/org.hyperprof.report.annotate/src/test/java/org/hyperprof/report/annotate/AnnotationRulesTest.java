package org.hyperprof.report.annotate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.hyperprof.api.report.ReportException;
import org.hyperprof.api.report.ReportRequest;
import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SampleBatch;
import org.hyperprof.api.sample.SessionInfo;
import org.hyperprof.pipeline.Dictionary;
import org.hyperprof.testing.sample.NetworkExperiment;
import org.hyperprof.testing.sample.TestBatches;
import org.hyperprof.testing.tools.TestPrograms;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules of annotation on a session made by hand over a program gcc builds now: a sample's pc
 * goes through its process's mapping to a file offset and through the file's loadable segments to
 * the address objdump prints, and counts on that instruction; what cannot be placed is said, never
 * counted elsewhere; an image with no code, or a session without mappings, is a clear refusal.
 */
class AnnotationRulesTest {

    private static final int PID = 42;
    private static final long BASE = 0x5555_5555_4000L;

    @TempDir
    static Path dir;
    static Path exe;
    static List<Binutils.Line> spin;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(TestPrograms.runs("gcc", "--version"), "gcc is not installed");
        assumeTrue(TestPrograms.binutils(), "binutils (objdump, nm) are not installed");
        exe = TestPrograms.build(dir, "hot.c", "hot", "-g");
        Binutils.Function f = new Binutils().function(exe, "spin");
        spin = new Binutils().disassemble(exe, f.start(), f.end(), false);
    }

    /** A session of one process whose image is the test program, mapped at {@link #BASE} from file offset 0. */
    private static final class Session {
        final Dictionary dictionary = new Dictionary();
        final int image;
        final int symbol;
        final TestBatches batches = new TestBatches(7);

        Session(String imageName) {
            image = dictionary.addImage(imageName, ImageKind.USER, 0);
            symbol = dictionary.addSymbol("spin", image);
        }

        Session mapped(int pid, long start, long fileOffset) {
            dictionary.addMapping(0, pid, image, start, start + 0x10000, fileOffset);
            return this;
        }

        Session samples(int times, int pid, long pc) {
            for (int i = 0; i < times; i++) {
                batches.sample(0, 0, (byte) 0, 0, pc, image, symbol, 1, SampleBatch.UNKNOWN, 0, pid, pid);
            }
            return this;
        }

        AddressCounts counts() {
            AddressCounts counts = new AddressCounts(info());
            counts.accept(batches.build());
            return counts;
        }

        SessionInfo info() {
            return new SessionInfo(7, "perf.data", "test", "x86-64", "test CPU", 0,
                    List.of(NetworkExperiment.CYCLES_100000), Map.of(0, "host"), false, dictionary);
        }
    }

    private static List<Binutils.Line> instructions() {
        return spin.stream().filter(Binutils.Line::isInstruction).toList();
    }

    /** The samples of each instruction of an annotation, by address. */
    private static Map<Long, Long> counts(Annotation a) {
        Map<Long, Long> m = new LinkedHashMap<>();
        for (Annotation.Row r : a.lines()) {
            if (r.isInstruction()) {
                m.put(r.address(), r.samples());
            }
        }
        return m;
    }

    private static Annotation annotate(Session s) throws ReportException {
        return new Annotator(new Binutils()).annotate(s.counts(), "spin", null, -1, false);
    }

    @Test
    void eachSampleCountsOnTheInstructionItsMappingPlacesItAt() throws Exception {
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0);
        Map<Long, Long> expected = new LinkedHashMap<>();
        List<Binutils.Line> code = instructions();
        for (int k = 0; k < code.size(); k++) {
            long address = code.get(k).address();
            int times = k % 3 == 0 ? k + 1 : 0;
            s.samples(times, PID, BASE + address);
            expected.put(address, (long) times);
        }
        Annotation a = annotate(s);
        assertEquals(expected, counts(a));
        assertEquals(0, a.outside());
        assertEquals(List.of(), a.notes());
    }

    @Test
    void aMappingFromALaterFileOffsetShiftsThePcsByThatOffset() throws Exception {
        ElfSegments segments = ElfSegments.read(exe);
        long address = instructions().get(2).address();
        ElfSegments.Segment text = segments.loads().stream().filter(g -> address >= g.vaddr()
                && address - g.vaddr() < g.fileSize()).findFirst().orElseThrow();
        long start = 0x7f00_0000_0000L;
        // The mapping starts at the text segment's file offset, as the dynamic linker maps it.
        Session s = new Session(exe.toString()).mapped(PID, start, text.offset())
                .samples(5, PID, start + (address - text.vaddr()));
        assertEquals(5L, counts(annotate(s)).get(address));
    }

    @Test
    void anotherProcessNeedsAMappingOfItsOwn() throws Exception {
        long address = instructions().get(1).address();
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0).samples(3, PID, BASE + address)
                .samples(4, PID + 1, BASE + address);
        Annotation a = annotate(s);
        assertEquals(3L, counts(a).get(address));
        assertEquals(4, a.outside());
        assertTrue(a.notes().get(0).startsWith("4 samples of spin lay in no mapping"), a.notes().toString());
    }

    @Test
    void aPcInsideAnInstructionCountsOnItAndAPcPastTheFunctionIsLeftOutWithANote() throws Exception {
        List<Binutils.Line> code = instructions();
        long first = code.get(0).address();
        long second = code.get(1).address();
        Binutils.Function f = new Binutils().function(exe, "spin");
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0).samples(2, PID, BASE + first + 1)
                .samples(3, PID, BASE + second).samples(6, PID, BASE + f.end());
        Annotation a = annotate(s);
        assertEquals(2L, counts(a).get(first), "a simulated pc inside the first instruction");
        assertEquals(3L, counts(a).get(second));
        assertEquals(6, a.outside());
        assertTrue(a.notes().get(0).startsWith("6 samples of spin lay outside its bounds in " + exe), a.notes()
                .toString());
        assertTrue(a.notes().get(1).startsWith("2 samples of spin fell inside an instruction"), a.notes().toString());
    }

    @Test
    void anImageWhoseFileIsNotItsNameIsReadFromItsFile() throws Exception {
        // A simulated host's real ELF image: the reports name it by its short name.
        Session s = new Session("hot").mapped(PID, BASE, 0);
        s.dictionary.imageFile(s.image, exe.toString());
        long address = instructions().get(3).address();
        s.samples(7, PID, BASE + address);
        Annotation a = annotate(s);
        assertEquals(7L, counts(a).get(address));
        assertEquals(exe.toString(), a.image());
    }

    @Test
    void aNameOfSeveralImagesIsRefusedUntilImageChoosesOne() throws Exception {
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0);
        int other = s.dictionary.addImage("/usr/lib/libother.so", ImageKind.USER, 0);
        s.dictionary.addSymbol("spin", other);
        long address = instructions().get(0).address();
        s.samples(2, PID, BASE + address);
        ReportException e = assertThrows(ReportException.class, () -> annotate(s));
        assertEquals("'spin' is a symbol of 2 images of session 7: " + exe + ", /usr/lib/libother.so; choose one"
                + " with --image REGEX", e.getMessage());
        Annotation a = new Annotator(new Binutils()).annotate(s.counts(), "spin",
                java.util.regex.Pattern.compile("/hot$"), -1, false);
        assertEquals(2L, counts(a).get(address));
    }

    @Test
    void anImageThatNamesNoFileHasNoCodeToDisassemble() {
        Session s = new Session("[unknown]").mapped(PID, BASE, 0).samples(1, PID, BASE + 0x1000);
        ReportException e = assertThrows(ReportException.class, () -> annotate(s));
        assertTrue(e.getMessage().startsWith("cannot annotate spin: its image [unknown] has no code to disassemble"),
                e.getMessage());
    }

    @Test
    void aSessionWithoutMappingsSaysItCannotPlaceTheSamples() {
        Session s = new Session(exe.toString()).samples(1, PID, BASE + 0x1000);
        ReportException e = assertThrows(ReportException.class, () -> annotate(s));
        assertTrue(e.getMessage().contains("its source gave no mappings, or a store that keeps none replayed it"),
                e.getMessage());
    }

    @Test
    void aSymbolTheSessionDoesNotHaveIsNamedInTheRefusal() {
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0);
        ReportException e = assertThrows(ReportException.class,
                () -> new Annotator(new Binutils()).annotate(s.counts(), "spinner", null, -1, false));
        assertEquals("session 7 has no symbol named 'spinner'; hp:report symbols lists the sampled ones (give the"
                + " name as it prints it)", e.getMessage());
    }

    @Test
    void theRendererPrintsSharesAndSourceLinesAndJson() throws Exception {
        Session s = new Session(exe.toString()).mapped(PID, BASE, 0);
        long address = instructions().get(0).address();
        s.samples(4, PID, BASE + address);
        AnnotateConsumer consumer = new AnnotateConsumer();
        consumer.sessionStarted(s.info());
        consumer.samples(s.batches.build());
        StringBuilder text = new StringBuilder();
        consumer.render(new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of("symbol=spin", "source")), text);
        String hex = Long.toHexString(address);
        assertTrue(text.toString().matches("(?s).*\n       4  100.00% : +" + hex + ":  .*"), text.toString());
        assertTrue(text.toString().contains(": b ^= a >> 13;") || text.toString().contains("b ^= a >> 13;"),
                text.toString());
        StringBuilder json = new StringBuilder();
        consumer.render(new ReportRequest(7, ReportRequest.ALL_DOMAINS, Set.of("symbol=spin", "format=json")), json);
        assertTrue(json.toString().contains("{\"address\":\"0x" + hex + "\",\"samples\":4,"), json.toString());
    }

    @Test
    void anOptionTheRendererDoesNotKnowIsRefusedWithItsOptions() {
        AnnotateConsumer consumer = new AnnotateConsumer();
        consumer.sessionStarted(new Session(exe.toString()).info());
        ReportException e = assertThrows(ReportException.class, () -> consumer.render(new ReportRequest(7,
                ReportRequest.ALL_DOMAINS, Set.of("symbol=spin", "top=3")), new StringBuilder()));
        assertTrue(e.getMessage().startsWith("unknown annotate option 'top=3'; the options are: symbol=NAME"),
                e.getMessage());
    }
}

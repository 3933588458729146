package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * {@link PerfNaming#kallsymsRuns}, which reads the usual line shape without a loop per digit and
 * finds line ends eight bytes at a time, finds exactly the runs the plain digit-by-digit scan below
 * (the earlier implementation) finds: on real kallsyms text and on mutated and odd text.
 */
class KallsymsRunsDifferentialTest {

    @Test
    void agreesWithThePlainScanOnThisMachinesKallsyms() throws Exception {
        for (String f : new String[] {"/proc/kallsyms"}) {
            Path p = Path.of(f);
            if (Files.isReadable(p)) {
                byte[] text = Files.readAllBytes(p);
                same(text);
            }
        }
    }

    @Test
    void agreesWithThePlainScanOnMutatedText() {
        Random rnd = new Random(7);
        String base = "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81000100 t __do_sys_x\n"
                + "ffffffff81000100 D data_between\nFFFFFFFF81000100 T __x64_sys_x\n0ffffffff81000100 W w_17\n"
                + "ffffffff81000200 T alone\nffffffff81000300 t mod_a\t[mod]\nffffffff81000300 t mod_b\t[mod]\r\n"
                + "81000400 T short\n0000000081000400 t padded\n  ffffffff81000500 T blank_first\n"
                + "ffffffff81000600 T\nffffffff81000600 t x\nffffffff81000600 t \n\n\nffffffff81000700 T a b\n"
                + "ffffffff81000700 T c\tfoo\n";
        byte[] b = base.getBytes(StandardCharsets.US_ASCII);
        same(b);
        for (int cut = 0; cut <= b.length; cut++) {
            same(Arrays.copyOf(b, cut));
        }
        byte[] alphabet = "0123456789abcdefABCDEFxTtWwDd \t\r\n[]_".getBytes(StandardCharsets.US_ASCII);
        for (int round = 0; round < 20_000; round++) {
            byte[] m = b.clone();
            int edits = 1 + rnd.nextInt(6);
            for (int e = 0; e < edits; e++) {
                m[rnd.nextInt(m.length)] = rnd.nextInt(4) == 0 ? (byte) rnd.nextInt(256)
                        : alphabet[rnd.nextInt(alphabet.length)];
            }
            same(Arrays.copyOf(m, m.length - rnd.nextInt(Math.min(40, m.length))));
        }
    }

    @Test
    void agreesWithThePlainScanOnGeneratedRuns() {
        Random rnd = new Random(11);
        StringBuilder sb = new StringBuilder();
        long a = 0xffffffff81000000L;
        for (int i = 0; i < 50_000; i++) {
            if (rnd.nextInt(3) != 0) {
                a += 16 * (1 + rnd.nextInt(4));
            }
            String hex = Long.toHexString(a);
            if (rnd.nextInt(50) == 0) {
                hex = hex.toUpperCase();
            }
            char type = "TtWwDdbrA".charAt(rnd.nextInt(9));
            sb.append(hex).append(' ').append(type).append(' ').append("sym_").append(i);
            if (rnd.nextInt(5) == 0) {
                sb.append("\t[mod").append(rnd.nextInt(3)).append(']');
            }
            sb.append('\n');
        }
        same(sb.toString().getBytes(StandardCharsets.US_ASCII));
    }

    private static void same(byte[] text) {
        PerfNaming.KallsymsRuns got = PerfNaming.kallsymsRuns(text);
        PerfNaming.KallsymsRuns want = plain(text);
        assertEquals(want.count, got.count, "runs");
        assertArrayEquals(Arrays.copyOf(want.address, want.count), Arrays.copyOf(got.address, got.count));
        assertArrayEquals(Arrays.copyOf(want.nameStart, want.count), Arrays.copyOf(got.nameStart, got.count));
        assertArrayEquals(Arrays.copyOf(want.nameEnd, want.count), Arrays.copyOf(got.nameEnd, got.count));
    }

    /** The earlier scan: each line digit by digit, each name's end found as it is met. */
    private static PerfNaming.KallsymsRuns plain(byte[] text) {
        PerfNaming.KallsymsRuns runs = new PerfNaming.KallsymsRuns();
        int n = text.length;
        int pos = 0;
        long runAddress = -1;
        int runLength = 0;
        int lastStart = -1;
        int lastEnd = -1;
        while (pos < n) {
            int p = pos;
            long address = 0;
            int d;
            while (p < n && (d = Character.digit(text[p], 16)) >= 0) {
                address = (address << 4) | d;
                p++;
            }
            int q = p;
            if (p > pos && p + 3 < n && text[p] == ' ' && "TtWw".indexOf(text[p + 1]) >= 0 && text[p + 2] != '\n'
                    && text[p + 3] != '\n') {
                int nameStart = p + 3;
                int nameEnd = nameStart;
                byte c;
                while (nameEnd < n && (c = text[nameEnd]) != ' ' && c != '\t' && c != '\r' && c != '\n') {
                    nameEnd++;
                }
                if (runLength > 0 && address == runAddress) {
                    runLength++;
                } else {
                    if (runLength >= 2) {
                        runs.add(runAddress, lastStart, lastEnd);
                    }
                    runAddress = address;
                    runLength = 1;
                }
                lastStart = nameStart;
                lastEnd = nameEnd;
                q = nameEnd;
            }
            while (q < n && text[q] != '\n') {
                q++;
            }
            pos = q + 1;
        }
        if (runLength >= 2) {
            runs.add(runAddress, lastStart, lastEnd);
        }
        return runs;
    }
}

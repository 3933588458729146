package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** A record's name is the bytes up to its NUL, the same whether read for the first time or met again. */
class RecordStringsTest {

    private static ByteBuffer record(String name, int padding) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocateDirect(8 + n.length + 1 + padding);
        b.position(8);
        b.put(n);
        return b.clear();
    }

    @Test
    void aNameMetAgainIsTheStringMadeTheFirstTime() {
        RecordStrings names = new RecordStrings();
        ByteBuffer padded = record("/usr/lib/x86_64-linux-gnu/libc.so.6", 7);
        String first = names.cString(padded, 8, padded.capacity());
        assertEquals("/usr/lib/x86_64-linux-gnu/libc.so.6", first);
        ByteBuffer again = record("/usr/lib/x86_64-linux-gnu/libc.so.6", 3);
        assertSame(first, names.cString(again, 8, again.capacity()));
    }

    @Test
    void noNulBeforeTheEndIsNoName() {
        RecordStrings names = new RecordStrings();
        ByteBuffer b = record("gzip", 0);
        assertNull(names.cString(b, 8, 12), "the NUL lies past the record's end");
        assertEquals("gzip", names.cString(b, 8, 13));
        assertEquals("", names.cString(record("", 0), 8, 9));
    }

    @Test
    void namesSharingACacheSlotOrAPrefixStayApart() {
        RecordStrings names = new RecordStrings();
        Random random = new Random(3);
        for (int k = 0; k < 20_000; k++) {
            int n = random.nextInt(40);
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < n; i++) {
                s.append((char) ('a' + random.nextInt(3)));
            }
            if (random.nextInt(10) == 0) {
                s.append("\u00e9\u4e2d"); // UTF-8 names (perf writes the bytes the kernel has)
            }
            String name = s.toString();
            ByteBuffer b = record(name, random.nextInt(8));
            assertEquals(name, names.cString(b, 8, b.capacity()));
        }
    }
}

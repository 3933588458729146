package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.junit.jupiter.api.Test;

/** The one dictionary: dense ids in the order added, every entry below a count readable from any thread. */
class DictionaryTest {
    private final Dictionary d = new Dictionary();

    @Test
    void idsAreDenseInTheOrderAddedAndKeepTheirEntriesAsTheArraysGrow() {
        for (int i = 0; i < 100; i++) {
            assertEquals(i, d.addImage("image" + i, i % 2 == 0 ? ImageKind.USER : ImageKind.KERNEL, i % 3));
        }
        for (int i = 0; i < 5000; i++) {
            assertEquals(i, d.addSymbol("f" + i, i % 100));
        }
        assertEquals(100, d.imageCount());
        assertEquals(5000, d.symbolCount());
        assertEquals("image63", d.imageName(63));
        assertEquals(ImageKind.KERNEL, d.imageKind(63));
        assertEquals(0, d.imageDomain(63));
        assertEquals("f4321", d.symbolName(4321));
        assertEquals(21, d.symbolImage(4321));
        assertEquals("(no symbols)", d.symbolName(SessionDictionary.NO_SYMBOL));
    }

    @Test
    void anIdOutsideTheDictionaryIsRefusedSayingWhatItHolds() {
        d.addImage("vmlinux", ImageKind.KERNEL, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.symbolName(0));
        assertEquals("symbol id 0 is not in this session's dictionary, which has 0 symbols (ids 0..-1; -1 means no"
                + " symbol)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> d.imageName(1));
        assertEquals("image id 1 is not in this session's dictionary, which has 1 images (ids 0..0)", e.getMessage());
    }

    @Test
    void processesAreNamedByDomainAndPidAndALaterNameReplacesAnEarlierOne() {
        d.nameProcess(0, 42, "bash");
        d.nameProcess(1, 42, "nginx");
        d.nameProcess(0, 42, "make");
        assertEquals("make", d.processName(0, 42));
        assertEquals("nginx", d.processName(1, 42));
        assertNull(d.processName(0, 43));
    }

    @Test
    void aReaderOnAnotherThreadSeesEveryEntryBelowTheCountItReads() throws Exception {
        AtomicReference<String> wrong = new AtomicReference<>();
        int image = d.addImage("app", ImageKind.USER, 0);
        Thread reader = new Thread(() -> {
            int seen = 0;
            while (seen < 200_000 && wrong.get() == null) {
                int n = d.symbolCount();
                for (int i = seen; i < n; i++) {
                    if (!("s" + i).equals(d.symbolName(i))) {
                        wrong.set("symbol " + i + " read as " + d.symbolName(i) + " with a count of " + n);
                    }
                }
                seen = n;
            }
        });
        reader.start();
        for (int i = 0; i < 200_000; i++) {
            d.addSymbol("s" + i, image);
        }
        reader.join(30_000);
        assertTrue(wrong.get() == null, wrong.get());
    }

    @Test
    void reportsShowCxxAndRustNamesDemangledInFullOrShortAndOtherNamesAsTheyAre() {
        Dictionary d = new Dictionary();
        int exe = d.addImage("/usr/bin/app", ImageKind.USER, 0);
        int sum = d.addSymbol("_ZNK3geo4GridIdE3sumEi", exe);
        int plain = d.addSymbol("main", exe);
        int rust = d.addSymbol("_ZN4prog5inner4work17h0123456789abcdefE", exe);
        assertEquals("geo::Grid<double>::sum(int) const", d.shownName(sum));
        assertEquals("geo::Grid<double>::sum", d.briefName(sum));
        assertEquals("_ZNK3geo4GridIdE3sumEi", d.symbolName(sum), "the source's name stays");
        assertEquals("main", d.shownName(plain));
        assertEquals("prog::inner::work", d.shownName(rust));
        int address = d.address(exe, 0x4883);
        assertEquals(d.symbolName(address), d.shownName(address));
        d.demangle(false);
        assertEquals("_ZNK3geo4GridIdE3sumEi", d.shownName(sum));
        assertEquals("_ZNK3geo4GridIdE3sumEi", d.briefName(sum));
    }
}

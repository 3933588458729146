package org.hyperprof.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.sample.SessionDictionary;
import org.junit.jupiter.api.Test;

/** Addresses without a symbol are numbered densely, in the order met, one number per (image, address). */
class AddressSymbolsTest {

    /** The number of (image, address), made on first sight; a lookup from any thread finds it. */
    private static int id(AddressSymbols frames, int image, long address) {
        int id = frames.intern(image, address);
        assertEquals(id, frames.find(image, address), "a lookup finds what was interned");
        return id;
    }

    @Test
    void theDictionaryNamesAddressSymbolsBelowNoSymbolAndPrintsThemAsPerfDoes() {
        Dictionary d = new Dictionary();
        int image = d.addImage("/usr/bin/stripped", ImageKind.USER, 0);
        int a = d.address(image, 0x1139L);
        assertEquals(-2, a, "the first address symbol lies just below NO_SYMBOL");
        assertEquals(a, d.address(image, 0x1139L), "an address met again keeps its symbol");
        assertEquals(a, d.addressSymbol(image, 0x1139L));
        assertEquals(SessionDictionary.NO_SYMBOL, d.addressSymbol(image, 0x113aL),
                "an address never named has no address symbol");
        assertEquals("0x0000000000001139", d.symbolName(a));
        assertEquals("0000000000000000", d.symbolName(d.address(image, 0)), "perf prints address 0 without 0x");
        assertEquals(image, d.symbolImage(a));
        assertEquals(0x1139L, d.symbolAddress(a));
        assertEquals(2, d.addressCount());
        assertEquals(0, d.symbolCount(), "address symbols are not among the named symbols");
    }

    @Test
    void idsAreDenseInTheOrderMetAndOnePerImageAndAddress() {
        AddressSymbols frames = new AddressSymbols();
        assertEquals(0, id(frames, 3, 0x401000L));
        assertEquals(1, id(frames, 4, 0x401000L), "the same address in another image is another frame");
        assertEquals(2, id(frames, 3, 0x401001L), "another address in the same image is another frame");
        assertEquals(0, id(frames, 3, 0x401000L), "a frame met again keeps its id");
        assertEquals(3, frames.count());
        assertEquals(4, frames.image(1));
        assertEquals(0x401001L, frames.address(2));
    }

    @Test
    void idsHoldThroughGrowthForAddressesThatDifferOnlyInHighBitsOrAreKernelAddresses() {
        // Run-time addresses of one stripped program in many processes differ in the bits ASLR moves.
        AddressSymbols frames = new AddressSymbols();
        Map<String, Integer> expected = new HashMap<>();
        Random random = new Random(7);
        for (int k = 0; k < 200_000; k++) {
            int image = random.nextInt(5);
            long address = switch (k % 3) {
                case 0 -> 0x5500_0000_0000L + ((long) random.nextInt(1 << 20) << 12) + 0x1139;
                case 1 -> 0xffff_ffff_8100_0000L + random.nextInt(1 << 16);
                default -> random.nextLong();
            };
            int id = id(frames, image, address);
            Integer before = expected.putIfAbsent(image + "@" + address, id);
            if (before == null) {
                assertEquals(expected.size() - 1, id, "a new frame takes the next id");
            } else {
                assertEquals(before, id, "a frame met again keeps its id");
            }
        }
        assertEquals(expected.size(), frames.count());
        for (int id = 0; id < frames.count(); id++) {
            assertEquals(id, expected.get(frames.image(id) + "@" + frames.address(id)));
        }
    }

    @Test
    void namingManyAtOnceNumbersThemAsNamingEachInTurnDoes() {
        Dictionary one = new Dictionary();
        Dictionary many = new Dictionary();
        Random random = new Random(11);
        int n = 50_000;
        int[] images = new int[n];
        long[] addresses = new long[n];
        for (int k = 0; k < n; k++) {
            images[k] = random.nextInt(3);
            addresses[k] = 0x5500_0000_0000L + random.nextInt(20_000);
        }
        for (Dictionary d : new Dictionary[] {one, many}) {
            for (int img = 0; img < 3; img++) {
                d.addImage("/usr/bin/stripped-" + img, ImageKind.USER, 0);
            }
            d.address(1, 0x5500_0000_0007L);
        }
        int[] ids = new int[n];
        many.addresses(images, addresses, n, ids);
        for (int k = 0; k < n; k++) {
            assertEquals(one.address(images[k], addresses[k]), ids[k], "pair " + k + ", known before or met"
                    + " earlier in the same call, keeps its symbol; a new one takes the next");
        }
        assertEquals(one.addressCount(), many.addressCount());
        assertEquals(ids[n - 1], many.addressSymbol(images[n - 1], addresses[n - 1]), "found after the table grew once");
    }
}

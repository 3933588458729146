package org.hyperprof.source.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** Frames without a symbol are numbered densely, in the order met, one id per (image, address). */
class UnknownFramesTest {

    @Test
    void idsAreDenseInTheOrderMetAndOnePerImageAndAddress() {
        UnknownFrames frames = new UnknownFrames();
        assertEquals(0, frames.id(3, 0x401000L));
        assertEquals(1, frames.id(4, 0x401000L), "the same address in another image is another frame");
        assertEquals(2, frames.id(3, 0x401001L), "another address in the same image is another frame");
        assertEquals(0, frames.id(3, 0x401000L), "a frame met again keeps its id");
        assertEquals(3, frames.count());
        assertEquals(4, frames.image(1));
        assertEquals(0x401001L, frames.address(2));
    }

    @Test
    void idsHoldThroughGrowthForAddressesThatDifferOnlyInHighBitsOrAreKernelAddresses() {
        // Run-time addresses of one stripped program in many processes differ in the bits ASLR moves.
        UnknownFrames frames = new UnknownFrames();
        Map<String, Integer> expected = new HashMap<>();
        Random random = new Random(7);
        for (int k = 0; k < 200_000; k++) {
            int image = random.nextInt(5);
            long address = switch (k % 3) {
                case 0 -> 0x5500_0000_0000L + ((long) random.nextInt(1 << 20) << 12) + 0x1139;
                case 1 -> 0xffff_ffff_8100_0000L + random.nextInt(1 << 16);
                default -> random.nextLong();
            };
            int id = frames.id(image, address);
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
}

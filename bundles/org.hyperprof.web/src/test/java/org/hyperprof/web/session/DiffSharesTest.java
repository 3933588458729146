package org.hyperprof.web.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.hyperprof.api.sample.ImageKind;
import org.hyperprof.api.store.DiffStack;
import org.junit.jupiter.api.Test;

/** The diff page's figures: hp:diff's rule for a delta beyond chance, and the tree of the differential stacks. */
class DiffSharesTest {

    @Test
    void aDeltaIsMarkedWhenItExceedsThreeStandardErrors() {
        // 10 % of 10,000 against 12 % of 10,000: se of the difference 0.0044, 3 se = 1.33 points < 2 points.
        assertTrue(DiffShares.beyondChance(0.10, 10_000, 0.12, 10_000));
        // The same shares of 100 samples each: 3 se = 13.3 points.
        assertFalse(DiffShares.beyondChance(0.10, 100, 0.12, 100));
        assertEquals(0, DiffShares.share(5, 0));
    }

    @Test
    void theTreeCountsBothSessionsPerFrame() {
        DiffStack.Frame main = new DiffStack.Frame("app", ImageKind.USER, "main");
        DiffStack.Frame work = new DiffStack.Frame("app", ImageKind.USER, "work");
        DiffTree t = DiffTree.of(List.of(new DiffStack("Domain-0", List.of(main, work), 10, 30),
                new DiffStack("Domain-0", List.of(main), 5, 1)));
        DiffTree.Node root = t.root();
        assertEquals(15, root.totalA);
        assertEquals(31, root.totalB);
        DiffTree.Node m = root.children.values().iterator().next().children.values().iterator().next();
        assertEquals("main", m.name);
        assertEquals(5, m.selfA);
        assertEquals(1, m.selfB);
        assertEquals(31, m.totalB);
    }
}

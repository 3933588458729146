package org.hyperprof.api.store;

import java.util.List;

/**
 * Group B of the fleet against group A, the baseline.
 *
 * @param rows   largest change of share first
 * @param totalA group A's samples
 * @param totalB group B's samples
 * @param more   rows left out past the number asked for
 */
public record FleetDiff(List<Row> rows, long totalA, long totalB, long more) {
    public FleetDiff {
        rows = List.copyOf(rows);
    }

    /**
     * One image or symbol in either group.
     *
     * @param symbol null in a diff of images
     * @param shareA its share of group A's samples, 0 to 1
     * @param shareB the same in group B
     * @param marked whether the change is beyond what chance gives (the rule {@code hp:diff} marks with *)
     */
    public record Row(String image, String symbol, long samplesA, long samplesB, double shareA, double shareB,
            boolean marked) {
        /** B's share less A's, in percentage points. */
        public double deltaPoints() {
            return 100 * (shareB - shareA);
        }
    }
}

package org.hyperprof.api.store;

/**
 * One row of a differential profile: an image (or a symbol of it) in a domain, matched by name
 * across the two sessions (their ids are each session's own), with its samples and weight in each.
 *
 * @param domain           the domain's name
 * @param image            the image's name
 * @param symbol           the symbol's name ({@code (no symbols)} for code no symbol covers), or null
 *                         for a row of the image summary
 * @param baselineSamples  its samples in the baseline (A)
 * @param comparedSamples  its samples in the compared session (B)
 * @param baselineWeight   the events its samples stand for in A (the sum of their weights)
 * @param comparedWeight   the same in B
 */
public record DiffRow(String domain, String image, String symbol, long baselineSamples, long comparedSamples,
        long baselineWeight, long comparedWeight) {
}

package org.hyperprof.api.store;

/**
 * One row of the fleet's top list.
 *
 * @param image   the image's name
 * @param symbol  the symbol's name, or null in a list of images
 * @param samples its samples across the hosts selected
 * @param weight  the events they stand for
 * @param hosts   how many hosts have samples in it
 * @param share   its share of all the samples selected, 0 to 1
 */
public record FleetTop(String image, String symbol, long samples, long weight, long hosts, double share) {
}

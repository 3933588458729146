package org.hyperprof.hypervisor.sim.scenario;

import java.util.List;

import org.hyperprof.api.pmu.CpuMode;

/**
 * A weighted code region of a domain's workload: code of one image in one mode. Hypervisor regions
 * are Xen work done on the domain's behalf and charged to it.
 *
 * @param name    the region's name (a class of the seed's table: netback, grant_table.o, ...)
 * @param mode    user, kernel or hypervisor
 * @param image   the image the code belongs to
 * @param weight  share of the domain's busy time, relative to its other regions, in millionths
 * @param symbols the functions, each with its weight within the region
 * @param line    the scenario line
 */
public record RegionSpec(String name, CpuMode mode, ImageSpec image, long weight, List<WeightedSymbol> symbols,
        int line) {

    public RegionSpec {
        symbols = List.copyOf(symbols);
    }
}

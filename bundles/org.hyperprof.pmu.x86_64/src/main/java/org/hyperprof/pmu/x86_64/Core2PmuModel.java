package org.hyperprof.pmu.x86_64;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * OProfile's {@code i386/core_2}: Intel Core 2 (CPUID leaf 0x0A version 2, two 40-bit
 * general-purpose counters, three fixed counters) with OProfile's Core 2 event table.
 *
 * <p>Options of {@link #createPmu}: see {@link ArchPmuOptions}; {@code cpuid.version=0} is
 * allowed here and reproduces a BIOS that reports an empty leaf, for which Xen assumes version 2,
 * two 40-bit counters and keeps its overflow test at bit 31.
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("i386/core_2")
public final class Core2PmuModel extends IntelArchPmuModel {
}

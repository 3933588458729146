package org.hyperprof.pmu.x86_64;

import org.hyperprof.api.pmu.PmuModel;
import org.osgi.service.component.annotations.Component;

/**
 * OProfile's {@code i386/arch_perfmon}: any Intel CPU with architectural performance monitoring
 * that OProfile has no specific table for, here a Nehalem-class part (CPUID leaf 0x0A version 3,
 * four 48-bit general-purpose counters, three fixed counters), with the seven architectural
 * events filtered by CPUID.0AH EBX.
 *
 * <p>Options of {@link #createPmu}: see {@link ArchPmuOptions} ({@code cpuid.version=1..3},
 * {@code cpuid.gp}, {@code cpuid.width}, {@code cpuid.fixed}, {@code cpuid.fixed.width},
 * {@code cpuid.ebx}, {@code handler.clearstatus}, {@code msr.fullwidth}, {@code lvtpc.automask}).
 */
@Component(service = PmuModel.class)
@PmuModel.CpuType("i386/arch_perfmon")
public final class ArchPerfmonPmuModel extends IntelArchPmuModel {
}

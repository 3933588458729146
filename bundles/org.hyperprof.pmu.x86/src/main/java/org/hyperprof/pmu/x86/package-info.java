/**
 * The x86 driver sequence Xenoprof runs on a CPU's performance counters, kept once for the x86
 * models as OProfile keeps it in {@code nmi_int.c}, with each model's differences as hooks in the
 * manner of {@code op_x86_model_spec}, and the local APIC's LVTPC entry every x86 register file
 * holds. Not exported: each x86 model bundle carries its own copy of this package (bnd
 * {@code -conditionalpackage}), so a model bundle still installs alone.
 */
package org.hyperprof.pmu.x86;

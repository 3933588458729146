package org.hyperprof.hypervisor.sim.scenario;

import org.hyperprof.input.InputLimit;

/**
 * The most a scenario load reads: of the scenario's text, and of each symbol file in the built-in
 * System.map format ({@link SymbolFile}). Files of other formats are read by their resolvers, each
 * within its own ceiling. Both are settings of the host service (Configuration Admin PID
 * {@value #PID}).
 *
 * <p>The defaults leave a wide margin: the embedded scenarios are a few KB and a scenario naming
 * every function of a large program is well under a MB; a distribution kernel's /proc/kallsyms is
 * 10-20 MB and its System.map less.
 *
 * @param scenario    the ceiling of a scenario file
 * @param symbolFiles the ceiling of one System.map / kallsyms / nm file
 */
public record ScenarioLimits(InputLimit scenario, InputLimit symbolFiles) {

    /** The host service's Configuration Admin PID, where the ceilings are set. */
    public static final String PID = "org.hyperprof.hypervisor";
    public static final long DEFAULT_SCENARIO_MB = 16;
    public static final long DEFAULT_SYMBOL_FILE_MB = 256;

    /** The defaults. */
    public static final ScenarioLimits DEFAULT = of(DEFAULT_SCENARIO_MB, DEFAULT_SYMBOL_FILE_MB);

    /**
     * Ceilings in MiB.
     *
     * @throws IllegalArgumentException for a ceiling below 1 MiB, naming the setting
     */
    public static ScenarioLimits of(long scenarioMegabytes, long symbolFileMegabytes) {
        return new ScenarioLimits(
                InputLimit.ofMegabytes("scenario", scenarioMegabytes, "scenario.max.mb of PID " + PID
                        + " in Configuration Admin"),
                InputLimit.ofMegabytes("System.map or kallsyms file", symbolFileMegabytes, "symbols.max.mb of PID "
                        + PID + " in Configuration Admin"));
    }

    @Override
    public String toString() {
        return "scenario.max.mb " + (scenario.maxBytes() >> 20) + ", symbols.max.mb " + (symbolFiles.maxBytes() >> 20);
    }
}

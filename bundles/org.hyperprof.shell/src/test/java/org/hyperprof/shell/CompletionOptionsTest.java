package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Tab offers an hp: command the options its usage line shows, and no others. */
class CompletionOptionsTest {
    @Test
    void theOptionsOfAUsageLineInItsOrderEachOnce() {
        assertEquals(List.of("--cpu", "--host-option", "--pmu-option"),
                Completions.options("[name|path] [--cpu cpu.type] [--host-option k=v]... [--pmu-option k=v]..."));
    }

    @Test
    void aLoneDoubleDashAndPositionalWordsAreNoOptions() {
        assertEquals(List.of("--seconds", "--callgraph"),
                Completions.options("[--seconds N] [--callgraph] [-- <command...>]; --seconds again"));
        assertEquals(List.of(), Completions.options("<domid> [state|pause|unpause|destroy]"));
    }

    @Test
    void hpProfileOffersEveryOptionOfItsUsageLine() {
        assertEquals(List.of("--ms", "--event", "--domains", "--passive", "--passive-images", "--callgraph", "--scenario",
                "--cpu", "--host-option", "--pmu-option", "--report", "--no-report", "--guests-only", "--name"),
                Completions.options(HpCommand.PROFILE.usage()));
    }
}

package org.hyperprof.hypervisor.sim;

import static org.hyperprof.hypervisor.sim.Fixtures.ONE_DOMAIN;
import static org.hyperprof.hypervisor.sim.Fixtures.minimal;
import static org.hyperprof.hypervisor.sim.Fixtures.parseError;
import static org.hyperprof.hypervisor.sim.Fixtures.scenarioFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.hyperprof.api.host.ScenarioException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every number of a scenario has a range, which the error gives with the line: a context switch of
 * a trillion cycles was accepted and every sample fell in the idle vCPU's switch, which Xen drops.
 */
class ScenarioValuesTest {

    @TempDir
    Path dir;

    private final HostServiceImpl service = Fixtures.service();

    // ------------------------------------------------------------------------------------ ranges

    @Test
    void aContextSwitchOfATrillionCyclesIsRefusedWithTheRangeAndTheLine() throws Exception {
        Path file = scenarioFile(dir, minimal("cost.switch 1000000000000 context_switch=1\n", ONE_DOMAIN, "")
                .getBytes(StandardCharsets.UTF_8));
        ScenarioException e = assertThrows(ScenarioException.class, () -> service.load(file.toString(), null));
        assertEquals(file + ":6: cost.switch 1000000000000 cycles is out of range; expected 0 to 30000000, one time"
                + " slice (sched.timeslice.us 30000 at cpu.mhz 1000): work that takes longer than a time slice at each"
                + " event leaves the guests no time to run", e.getMessage());
    }

    // A weight written with a huge exponent made BigDecimal compute its power of ten to compare it with
    // the range (the fuzzer's 1e1000000 took a second), and 1e999999999 escaped as an ArithmeticException.
    @Test
    void aWeightWithAHugeExponentIsRefusedAsTooLargeAtOnce() {
        String message = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> parseError(minimal("cost.switch 4000 context_switch=1e999999999\n", ONE_DOMAIN, "")));
        assertEquals("test.scenario:6: weight of context_switch 1e999999999 is too large (weights are relative; use"
                + " smaller numbers)", message);
    }

    @Test
    void aLoadWithAHugeNegativeOrPositiveExponentIsRefusedAtOnce() {
        for (String load : new String[] {"1e-999999999", "1e999999999"}) {
            String message = assertTimeoutPreemptively(Duration.ofSeconds(20),
                    () -> parseError(minimal("", ONE_DOMAIN.replace("load=0.5", "load=" + load), "")));
            assertTrue(message.contains("load " + load + " must be a fraction from 0 to 1 with at most 6 decimals"),
                    message);
        }
    }

    @Test
    void aWeightOfAHundredThousandDigitsIsRefusedByItsStartAndLength() {
        String digits = "1".repeat(100_000);
        String message = parseError(minimal("cost.switch 4000 context_switch=" + digits + "\n", ONE_DOMAIN, ""));
        assertEquals("test.scenario:6: weight of context_switch '" + "1".repeat(40) + "...' (100000 characters) is not"
                + " a decimal number", message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cost.switch %d context_switch=1|cost.switch",
        "cost.nmi %d do_nmi=1|cost.nmi",
        "cost.idle %d idle_loop|cost.idle",
        "cost.vpmu msr %d|cost.vpmu msr",
        "cost.trap.hvm %d do_page_fault|cost.trap.hvm",
        "cost.trap.pv %d do_page_fault|cost.trap.pv"})
    void everyPriceOfHypervisorWorkIsAtMostOneTimeSlice(String statement, String name) throws Exception {
        String host = "sched.timeslice.us 1000\n";
        Fixtures.parse(minimal(host + String.format(statement, 1_000_000) + "\n", ONE_DOMAIN, ""));
        String message = parseError(minimal(host + String.format(statement, 1_000_001) + "\n", ONE_DOMAIN, ""));
        assertTrue(message.startsWith("test.scenario:7: " + name + " 1000001 cycles is out of range; expected 0 to"
                + " 1000000, one time slice (sched.timeslice.us 1000 at cpu.mhz 1000)"), message);
    }

    @Test
    void aGuestProfilersHandlerIsAtMostOneTimeSlice() throws Exception {
        String profiler = "profiler CPU_CLK_UNHALTED:100000 handler=tcp_v4_rcv handler.cycles=%d\n";
        Fixtures.parse(minimal("", ONE_DOMAIN, String.format(profiler, 30_000_000)));
        String message = parseError(minimal("", ONE_DOMAIN, String.format(profiler, 30_000_001)));
        assertTrue(message.startsWith("test.scenario:13: the profiler's handler.cycles 30000001 cycles is out of"
                + " range; expected 0 to 30000000"), message);
    }

    @Test
    void theGuestProfilersBuffersTogetherHoldAtMostSixteenMillionSlots() throws Exception {
        String profiler = "profiler CPU_CLK_UNHALTED:100000 handler=tcp_v4_rcv buffer=1048576\n";
        String domain = "domain 0 d0 type=pv vcpus=16 load=0.5 hardware=yes";
        Fixtures.parse(minimal("", domain, profiler));
        String message = parseError(minimal("", domain.replace("vcpus=16", "vcpus=17"), profiler));
        assertEquals("test.scenario:13: the guest profilers' buffers would hold 17825792 slots with this one's 17 x"
                + " 1048576 (vCPUs x buffer=); all together they may hold at most 16777216 (10 bytes each): give"
                + " smaller buffer= values", message);
    }
}

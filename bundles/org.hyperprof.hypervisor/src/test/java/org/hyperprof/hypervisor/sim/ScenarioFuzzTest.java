package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.hypervisor.sim.scenario.ScenarioOrigin;
import org.hyperprof.hypervisor.sim.scenario.ScenarioParser;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Scenario files as anyone may write them: the parser either gives a scenario or refuses the text
 * with a {@link ScenarioException} naming the line, in visible characters. Anything else (another
 * exception, a hang, running out of memory) is a finding. The symbol files a scenario names are the
 * bundle's own (the embedded scenarios' folder). In CI the inputs under
 * {@code ScenarioFuzzTestInputs/} are replayed as ordinary tests; the README's development section
 * gives the command that fuzzes.
 */
class ScenarioFuzzTest {

    @FuzzTest(maxDuration = "10m")
    void scenarioText(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        try {
            ScenarioParser.parse(ScenarioOrigin.text("fuzz.scenario", text, HostServiceImpl.class.getClassLoader(),
                    HostServiceImpl.SCENARIO_FOLDER), Map.of());
        } catch (ScenarioException e) {
            String m = e.getMessage();
            assertTrue(m != null && !m.isBlank(), "a refusal says why");
            assertTrue(m.codePoints().allMatch(c -> c == '\n' || c == '\t' || !Character.isISOControl(c)
                    && Character.getType(c) != Character.FORMAT), () -> "a refusal prints no invisible characters: " + m);
        }
    }
}

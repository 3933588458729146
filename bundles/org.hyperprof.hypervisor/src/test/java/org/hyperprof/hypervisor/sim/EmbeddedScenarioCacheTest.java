package org.hyperprof.hypervisor.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.hyperprof.api.host.HostService;
import org.hyperprof.hypervisor.sim.scenario.ScenarioLimits;
import org.junit.jupiter.api.Test;

/** An embedded scenario is parsed once per set of resolvers and ceilings, however often it is loaded. */
class EmbeddedScenarioCacheTest {

    @Test
    void loadingAgainReusesTheParsedScenario() throws Exception {
        HostServiceImpl service = Fixtures.service();
        SimHost first = (SimHost) service.load(HostService.DEFAULT_SCENARIO, null);
        SimHost second = (SimHost) service.load(HostService.DEFAULT_SCENARIO, null);
        assertSame(service.parse(HostService.DEFAULT_SCENARIO), service.parse(HostService.DEFAULT_SCENARIO));
        assertNotSame(first, second, "each load is a machine of its own");
        assertEquals(first.scenario().seed(), second.scenario().seed());
    }

    @Test
    void aNewResolverOrNewCeilingsParseAgain() throws Exception {
        HostServiceImpl service = Fixtures.service();
        var before = service.parse(HostService.DEFAULT_SCENARIO);
        service.addResolver("elf", new org.hyperprof.symbols.elf.ElfResolver());
        var withElf = service.parse(HostService.DEFAULT_SCENARIO);
        assertNotSame(before, withElf, "an image could now resolve otherwise");
        service.limits(ScenarioLimits.of(2, 256));
        assertNotSame(withElf, service.parse(HostService.DEFAULT_SCENARIO), "the ceilings changed");
    }
}

package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.hyperprof.api.host.HostService;
import org.hyperprof.api.plugin.PluginIdentity;
import org.hyperprof.api.pmu.PmuModel;
import org.hyperprof.api.symbols.SymbolResolver;
import org.hyperprof.api.vpmu.CounterVirtualizationPolicy;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;

/**
 * A plug-in is known by the service property its component states once: every CPU model,
 * counter-virtualization policy and symbol resolver is registered with it, says the same name
 * itself, and the host loads it under that name.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PluginIdentityIT extends InFramework {

    public PluginIdentityIT() {
        super("amd", "ppc970", "saverestore", "partitioned");
    }

    @Test
    public void everyPluginIsKnownByTheNameItRegistersWithAndTheHostLoadsItUnderThatName() throws Exception {
        HostService hosts = hosts();
        Services.await(context, PmuModel.class, "(cpu.type=x86-64/family15h)");
        Services.await(context, PmuModel.class, "(cpu.type=ppc64/970)");
        Services.await(context, CounterVirtualizationPolicy.class, "(vpmu.policy=partitioned)");
        Services.await(context, CounterVirtualizationPolicy.class, "(vpmu.policy=saverestore)");

        List<String> models = names(PmuModel.class, PmuModel.IDENTITY, PmuModel::cpuType);
        assertEquals(List.of("i386/athlon", "i386/p6", "ppc64/970", "x86-64/family10", "x86-64/family15h",
                "x86-64/hammer"), models);
        for (String cpuType : models) {
            assertEquals(cpuType, hosts.load(HostService.DEFAULT_SCENARIO, cpuType).model().cpuType());
        }

        List<String> policies = names(CounterVirtualizationPolicy.class, CounterVirtualizationPolicy.IDENTITY,
                CounterVirtualizationPolicy::name);
        assertEquals(List.of("partitioned", "saverestore", "systemwide"), policies);
        for (String policy : policies) {
            assertEquals(policy, hosts.load(HostService.DEFAULT_SCENARIO, null,
                    Map.of(CounterVirtualizationPolicy.NAME, policy), null).policy());
        }

        assertEquals(List.of("kallsyms"), names(SymbolResolver.class, SymbolResolver.IDENTITY, SymbolResolver::format));
    }

    /** Each service's identity as registered, checked against what the service says; sorted. */
    private <T> List<String> names(Class<T> type, PluginIdentity identity,
            Function<T, String> saysItIs) throws Exception {
        List<String> out = new ArrayList<>();
        for (ServiceReference<T> reference : context.getServiceReferences(type, null)) {
            T service = context.getService(reference);
            try {
                String name = identity.of(reference::getProperty, service);
                assertEquals(identity.property() + " of " + service, name, saysItIs.apply(service));
                out.add(name);
            } finally {
                context.ungetService(reference);
            }
        }
        assertTrue(type.getSimpleName() + "s registered", !out.isEmpty());
        out.sort(null);
        return out;
    }
}

package org.hyperprof.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.hyperprof.api.report.ReportFileWriter;
import org.hyperprof.api.report.ReportRenderer;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/** One tracker keeps several kinds: each service goes to the kinds it was registered as. */
class PluginKindsTest {

    @Test
    void theTrackersFilterNamesTheKindsInterfaces() {
        assertEquals("(|(objectClass=org.hyperprof.api.report.ReportRenderer)"
                + "(objectClass=org.hyperprof.api.report.ReportFileWriter))", new PluginKinds()
                .kind(ReportRenderer.class, ReportRenderer.IDENTITY, new Plugins<>())
                .kind(ReportFileWriter.class, ReportRenderer.IDENTITY, new Plugins<>()).filter());
    }

    @Test
    void aServiceGoesToEachKindItWasRegisteredAsAndLeavesThemAll() {
        Plugins<ReportRenderer> renderers = new Plugins<>();
        Plugins<ReportFileWriter> writers = new Plugins<>();
        PluginKinds kinds = new PluginKinds().kind(ReportRenderer.class, ReportRenderer.IDENTITY, renderers)
                .kind(ReportFileWriter.class, ReportRenderer.IDENTITY, writers);
        Object both = Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ReportRenderer.class, ReportFileWriter.class}, (p, m, a) -> null);
        ServiceReference<?> asRenderer = reference(Map.of(Constants.OBJECTCLASS,
                new String[] {ReportRenderer.class.getName()}, ReportRenderer.NAME, "r"));
        ServiceReference<?> asBoth = reference(Map.of(Constants.OBJECTCLASS,
                new String[] {ReportRenderer.class.getName(), ReportFileWriter.class.getName()}, ReportRenderer.NAME, "b"));
        kinds.bind(both, asRenderer);
        kinds.bind(both, asBoth);
        assertEquals(List.of("b", "r"), renderers.list().stream().map(Plugins.Entry::name).toList());
        assertEquals(List.of("b"), writers.list().stream().map(Plugins.Entry::name).toList());
        assertEquals("(unregistered)", writers.list().get(0).provider());
        kinds.unbind(asBoth);
        assertEquals(List.of("r"), renderers.list().stream().map(Plugins.Entry::name).toList());
        assertEquals(List.of(), writers.list());
    }

    private static ServiceReference<?> reference(Map<String, Object> properties) {
        return (ServiceReference<?>) Proxy.newProxyInstance(PluginKindsTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> properties.get((String) args[0]);
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> null;
                });
    }
}

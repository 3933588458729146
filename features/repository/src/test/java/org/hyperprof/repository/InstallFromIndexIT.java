package org.hyperprof.repository;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import aQute.bnd.header.Parameters;
import aQute.bnd.osgi.Constants;
import aQute.bnd.osgi.Processor;
import aQute.bnd.osgi.repository.XMLResourceParser;
import aQute.bnd.osgi.resource.CapReqBuilder;
import aQute.bnd.osgi.resource.ResourceUtils;
import org.apache.felix.framework.FrameworkFactory;
import org.apache.felix.resolver.Logger;
import org.apache.felix.resolver.ResolverImpl;
import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;
import org.hyperprof.api.host.ProgressListener;
import org.hyperprof.api.profiler.ProfileRequest;
import org.hyperprof.api.profiler.Profiler;
import org.hyperprof.api.sample.SessionSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.resource.Requirement;
import org.osgi.resource.Resource;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Hyperprof installed into a plain Felix framework (not the launcher) from the repository index the
 * build writes, as a user of their own container would: resolved from the index with the launcher's
 * requirements, installed from the index's URLs, started, and the default simulated host profiled
 * through the services.
 */
class InstallFromIndexIT {
    private static final Path INDEX = Path.of(System.getProperty("hyperprof.index"));
    private static final Path LAUNCHER_BNDRUN = Path.of(System.getProperty("hyperprof.launcher.bndrun"));
    private static final Path KARAF_FEATURE = Path.of(System.getProperty("hyperprof.karaf.feature"));
    private static final String API = "org.hyperprof.api";
    /**
     * DuckDB's JDBC bundle, which the store imports dynamically (the launcher installs it at the store's
     * first use): a container that stores sessions names it among its requirements, as README says.
     */
    private static final String DUCKDB = "org.duckdb.duckdb_jdbc";

    @Test
    void aPlainFelixInstallsHyperprofFromTheIndexAndProfilesTheDefaultHost(@TempDir Path storage) throws Exception {
        List<Resource> index = XMLResourceParser.getResources(INDEX.toFile());
        Framework felix = new FrameworkFactory().newFramework(Map.of(
                org.osgi.framework.Constants.FRAMEWORK_STORAGE, storage.toString(),
                // This test is the application embedding the framework: it shares the API's packages with
                // the bundles, the documented way for a host to talk to its bundles' services.
                org.osgi.framework.Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, exportedPackages(index, API),
                // The Gogo shell of the runtime feature: no console in a test, and it must not stop the framework.
                "gosh.args", "--nointeractive --noshutdown",
                // As the launcher's feature web sets it: should Felix HTTP start before the web bundle
                // keeps it stopped, it listens nowhere (hp:serve turns HTTP on by its configuration).
                "org.apache.felix.http.enable", "false"));
        felix.start();
        try {
            BundleContext context = felix.getBundleContext();
            List<Resource> resolved = resolve(index, felix.adapt(BundleRevision.class), launcherRequirements());
            assertTrue(identities(resolved).containsAll(Set.of(API, "org.hyperprof.profiler", "org.apache.felix.scr",
                    DUCKDB)), "resolved from the index: " + identities(resolved));

            List<Bundle> installed = new ArrayList<>();
            for (Resource resource : resolved) {
                URI url = ResourceUtils.getContentCapability(resource).url();
                assertEquals(INDEX.getParent(), Path.of(url).getParent(), url + " is the index's own copy");
                installed.add(context.installBundle(url.toString()));
            }
            for (Bundle bundle : installed) {
                if (bundle.getHeaders().get(org.osgi.framework.Constants.FRAGMENT_HOST) == null) {
                    bundle.start();
                }
            }

            HostService hosts = await(context, HostService.class);
            Profiler profiler = await(context, Profiler.class);
            Host host = hosts.load(HostService.DEFAULT_SCENARIO, null);
            assertEquals("i386/p6", host.model().cpuType());
            SessionSummary summary = profiler.profile(new ProfileRequest(List.of(), 100_000, List.of()),
                    ProgressListener.NONE);

            assertTrue(summary.completed(), summary.endReason());
            assertTrue(summary.accounting().balanced(),
                    "taken = delivered + lost + dropped + invalid: " + summary.accounting());
            assertTrue(summary.accounting().delivered() > 1000, "samples delivered: " + summary.accounting());
            assertTrue(summary.hypervisor().balanced());
        } finally {
            felix.stop();
            felix.waitForStop(TimeUnit.SECONDS.toMillis(20));
        }
    }

    @Test
    void theKarafFeatureNamesEveryHyperprofBundleOfTheIndex() throws Exception {
        Set<String> indexed = identities(XMLResourceParser.getResources(INDEX.toFile())).stream()
                .filter(id -> id.startsWith("org.hyperprof.")).collect(Collectors.toCollection(TreeSet::new));
        Matcher bundle = Pattern.compile("<bundle>mvn:org\\.hyperprof/([^/]+)/").matcher(Files.readString(KARAF_FEATURE));
        Set<String> featured = new TreeSet<>();
        while (bundle.find()) {
            featured.add(bundle.group(1));
        }
        assertEquals(indexed, featured);
    }

    /**
     * The requirements the launcher resolves (launch/hyperprof.bndrun and the feature.bnd files it
     * includes), and DuckDB's bundle for the store.
     */
    private static List<Requirement> launcherRequirements() throws Exception {
        try (Processor launcher = new Processor()) {
            launcher.setProperties(LAUNCHER_BNDRUN.toFile());
            List<Requirement> requirements = CapReqBuilder.getRequirementsFrom(new Parameters(
                    launcher.mergeProperties(Constants.RUNREQUIRES) + ",bnd.identity;id='" + DUCKDB + "'"));
            assertTrue(launcher.isOk(), launcher.getErrors().toString());
            return requirements;
        }
    }

    /** The bundles to install: what the resolver wired, less the framework and the requirements' own resource. */
    private static List<Resource> resolve(List<Resource> index, BundleRevision system, List<Requirement> requirements)
            throws Exception {
        IndexResolveContext context = new IndexResolveContext(index, system, requirements);
        Set<Resource> wired = new ResolverImpl(new Logger(Logger.LOG_WARNING)).resolve(context).keySet();
        return wired.stream().filter(r -> r != system && r != context.wanted() && !IndexResolveContext.isSynthetic(r))
                .toList();
    }

    /** The packages {@code bsn} exports, with their versions, as the index describes them. */
    private static String exportedPackages(List<Resource> index, String bsn) {
        Resource api = index.stream().filter(r -> bsn.equals(ResourceUtils.getIdentity(r))).findFirst()
                .orElseThrow(() -> new AssertionError(bsn + " is not in the index"));
        return api.getCapabilities(PackageNamespace.PACKAGE_NAMESPACE).stream()
                .map(c -> c.getAttributes().get(PackageNamespace.PACKAGE_NAMESPACE) + ";version="
                        + c.getAttributes().get(PackageNamespace.CAPABILITY_VERSION_ATTRIBUTE))
                .collect(Collectors.joining(","));
    }

    private static Set<String> identities(List<Resource> resources) {
        return resources.stream().map(ResourceUtils::getIdentity).collect(Collectors.toCollection(TreeSet::new));
    }

    private static <T> T await(BundleContext context, Class<T> type) throws InterruptedException {
        ServiceTracker<T, T> tracker = new ServiceTracker<>(context, type, null);
        tracker.open();
        T service = tracker.waitForService(TimeUnit.SECONDS.toMillis(20));
        assertNotNull(service, "no " + type.getName() + " service within 20 s");
        return service;
    }
}

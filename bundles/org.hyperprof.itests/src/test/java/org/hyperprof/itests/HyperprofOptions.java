package org.hyperprof.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.propagateSystemProperty;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.util.List;

import org.ops4j.pax.exam.Constants;
import org.ops4j.pax.exam.Option;

/** The Felix runtime the in-container tests start: the freshly built bundles, by file: URL. */
final class HyperprofOptions {
    /** The bundles every framework starts with, in this order: OSGi's DS and Config Admin, then the Hyperprof core. */
    private static final List<String> CORE = List.of("function", "promise", "component", "scr", "configadmin", "api",
            "input", "output", "demangle", "pipeline", "p6", "systemwide", "kallsyms", "hypervisor", "profiler");

    private HyperprofOptions() {
    }

    /** The file: URL of a bundle the build passed in as system property {@code itest.bundle.<name>}. */
    static String bundleUrl(String name) {
        String path = System.getProperty("itest.bundle." + name);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("bundle '" + name + "' was not passed to the test (itest.bundle." + name
                    + "=" + path + "); run the tests through Maven: mvn verify");
        }
        return new File(path).toURI().toString();
    }

    static String localRepository() {
        String repo = System.getProperty("itest.local.repository");
        if (repo == null || !new File(repo).isDirectory()) {
            throw new IllegalStateException("the local Maven repository was not passed to the test (itest.local.repository="
                    + repo + "); run the tests through Maven: mvn verify");
        }
        return repo;
    }

    /**
     * Felix with DS, Configuration Admin and the Hyperprof core (input and output files included) and
     * P6 model, plus {@code extra}.
     */
    static Option[] core(Option... extra) {
        return options(
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                systemProperty(Constants.EXAM_FAIL_ON_UNRESOLVED_KEY).value("true"),
                propagateSystemProperty("org.ops4j.pax.url.mvn.localRepository"),
                systemProperty("org.ops4j.pax.url.mvn.useFallbackRepositories").value("false"),
                // Maven resolved Pax Exam's own bundles before the tests (pom: pax-exam-runtime-bundles):
                // read them from the local repository as a file repository, never from the network.
                systemProperty("org.ops4j.pax.url.mvn.defaultRepositories")
                        .value(new File(localRepository()).toURI() + "@id=build-local@snapshots"),
                systemProperty("org.ops4j.pax.url.mvn.repositories").value(""),
                composite(CORE.stream().map(name -> bundle(bundleUrl(name))).toArray(Option[]::new)),
                junitBundles(),
                composite(extra));
    }
}

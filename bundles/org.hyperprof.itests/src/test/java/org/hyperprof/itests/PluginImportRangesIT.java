package org.hyperprof.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The import ranges plug-in bundles get, read from the manifests of the jars this build made: a
 * plug-in imports the API package of every service it registers (and so of the interfaces it
 * implements there) with a consumer range {@code [x.y,x+1)}, which a minor version of the API still
 * satisfies. A provider range {@code [x.y,x.y+1)} there means an interface a plug-in implements is
 * {@code @ProviderType}, and the next default method added would leave every built plug-in
 * unresolvable.
 *
 * <p>No framework: bnd wrote what the framework would check. The jars come from Maven (failsafe's
 * {@code itest.plugin.<bsn>} properties), so the reactor builds every plug-in before this module.
 */
public class PluginImportRangesIT {

    /** The folders under bundles/ that hold plug-ins: models, policies, resolvers, reports, sources, examples. */
    private static final Pattern PLUGIN = Pattern.compile("org\\.hyperprof\\.(pmu|vpmu|symbols|report|source|example)\\..+");
    private static final String PLUGIN_PROPERTY = "itest.plugin.";
    /** Bundles in those families that implement no API interface: perf's source brings shell commands only. */
    private static final java.util.Set<String> NOT_PLUGINS = java.util.Set.of("org.hyperprof.source.perf");
    private static final String API = "org.hyperprof.api.";
    /** {@code [x.y,x+1)} or {@code [x.y.z,x+1)}: any later minor version of major x. */
    private static final Pattern RANGE = Pattern.compile("\\[(\\d+)\\.(\\d+)(?:\\.(\\d+))?,(\\d+)(?:\\.0)?(?:\\.0)?\\)");

    @Test
    public void everyPluginBundleUnderBundlesIsChecked() throws IOException {
        Path bundles = Path.of(property("itest.bundles.dir"));
        TreeSet<String> folders = new TreeSet<>();
        try (Stream<Path> list = Files.list(bundles)) {
            list.filter(d -> PLUGIN.matcher(d.getFileName().toString()).matches())
                    .filter(d -> !NOT_PLUGINS.contains(d.getFileName().toString()))
                    .filter(PluginImportRangesIT::registersComponents)
                    .forEach(d -> folders.add(d.getFileName().toString()));
        }
        assertFalse("no plug-in folders found under " + bundles, folders.isEmpty());
        assertEquals("every plug-in bundle under bundles/ needs an itest.plugin.<bsn> property (and a test"
                + " dependency) in bundles/org.hyperprof.itests/pom.xml", folders, new TreeSet<>(pluginJars().keySet()));
    }

    @Test
    public void pluginsImportTheApiPackagesTheyImplementWithAConsumerRange() throws IOException {
        Map<String, String> exported = exportedVersions(Path.of(property("itest.bundle.api")));
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Path> plugin : pluginJars().entrySet()) {
            Manifest m = manifest(plugin.getValue());
            String bsn = m.getMainAttributes().getValue("Bundle-SymbolicName");
            assertEquals(plugin.getValue() + " is the jar of " + plugin.getKey(), plugin.getKey(), bsn);
            Map<String, Map<String, String>> imports = clauses(m.getMainAttributes().getValue("Import-Package"));
            TreeSet<String> packages = new TreeSet<>();
            for (String service : services(m.getMainAttributes().getValue("Provide-Capability"))) {
                if (service.startsWith(API)) {
                    packages.add(service.substring(0, service.lastIndexOf('.')));
                }
            }
            if (packages.isEmpty()) {
                problems.add(bsn + " registers no service of the API, so it is no plug-in the test can check");
            }
            for (String pkg : packages) {
                Map<String, String> attributes = imports.get(pkg);
                String range = attributes == null ? null : attributes.get("version");
                String problem = consumerRangeProblem(range, exported.get(pkg));
                if (problem != null) {
                    problems.add(bsn + " imports " + pkg + " " + problem);
                }
            }
        }
        assertTrue(String.join("\n", problems), problems.isEmpty());
    }

    /** Null when {@code range} is a consumer range that admits {@code exported}; else what is wrong. */
    static String consumerRangeProblem(String range, String exported) {
        if (range == null) {
            return "without a version range";
        }
        Matcher r = RANGE.matcher(range);
        if (!r.matches()) {
            return "at " + range + ", not a consumer range [x.y,x+1): the interfaces plug-ins implement there"
                    + " must be @ConsumerType";
        }
        int floorMajor = Integer.parseInt(r.group(1));
        if (Integer.parseInt(r.group(4)) != floorMajor + 1) {
            return "at " + range + ", not a consumer range [x.y,x+1)";
        }
        if (exported == null) {
            return "at " + range + ", but the API bundle does not export it";
        }
        String[] v = exported.split("\\.");
        int major = Integer.parseInt(v[0]);
        int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
        if (major != floorMajor || minor < Integer.parseInt(r.group(2))) {
            return "at " + range + ", which does not admit the API's " + exported;
        }
        return null;
    }

    @Test
    public void aProviderRangeIsRefusedAndAConsumerRangeAccepted() {
        // The rule itself, so that the test above cannot pass by accepting what it should refuse.
        assertNull(consumerRangeProblem("[2.0,3)", "2.0.0"));
        assertNull(consumerRangeProblem("[2.1,3)", "2.3.0"));
        assertTrue(consumerRangeProblem("[2.0,2.1)", "2.0.0").contains("@ConsumerType"));
        assertTrue(consumerRangeProblem("[2.0,4)", "2.0.0").contains("not a consumer range"));
        assertTrue(consumerRangeProblem("[1.0,2)", "2.0.0").contains("does not admit"));
        assertTrue(consumerRangeProblem(null, "2.0.0").contains("without"));
    }

    private static Map<String, Path> pluginJars() {
        Map<String, Path> jars = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(PLUGIN_PROPERTY)) {
                jars.put(name.substring(PLUGIN_PROPERTY.length()), Path.of(System.getProperty(name)));
            }
        }
        return jars;
    }

    private static boolean registersComponents(Path folder) {
        Path main = folder.resolve("src/main/java");
        if (!Files.isDirectory(main)) {
            return false;
        }
        // A kit (pmu.x86, pmu.kit, vpmu.kit) has no component: it is copied into plug-ins, never deployed.
        try (Stream<Path> files = Files.walk(main)) {
            return files.filter(f -> f.toString().endsWith(".java")).anyMatch(f -> {
                try {
                    return Files.readString(f).contains("\n@Component");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> exportedVersions(Path apiJar) throws IOException {
        Map<String, String> versions = new TreeMap<>();
        clauses(manifest(apiJar).getMainAttributes().getValue("Export-Package"))
                .forEach((pkg, attributes) -> versions.put(pkg, attributes.get("version")));
        return versions;
    }

    /** The objectClass names of the {@code osgi.service} capabilities. */
    private static List<String> services(String provideCapability) {
        List<String> services = new ArrayList<>();
        if (provideCapability == null) {
            return services;
        }
        for (String clause : split(provideCapability, ',')) {
            List<String> parts = split(clause, ';');
            if (!parts.get(0).strip().equals("osgi.service")) {
                continue;
            }
            for (String part : parts.subList(1, parts.size())) {
                int eq = part.indexOf('=');
                if (eq > 0 && part.substring(0, eq).strip().startsWith("objectClass")) {
                    for (String name : unquote(part.substring(eq + 1)).split(",")) {
                        services.add(name.strip());
                    }
                }
            }
        }
        return services;
    }

    /** An OSGi header as package name to its attributes (several names may share one clause). */
    private static Map<String, Map<String, String>> clauses(String header) {
        Map<String, Map<String, String>> result = new LinkedHashMap<>();
        if (header == null) {
            return result;
        }
        for (String clause : split(header, ',')) {
            List<String> names = new ArrayList<>();
            Map<String, String> attributes = new LinkedHashMap<>();
            for (String part : split(clause, ';')) {
                int eq = part.indexOf('=');
                if (eq < 0) {
                    names.add(part.strip());
                } else {
                    String key = part.substring(0, eq).strip();
                    // directives (key:=) are not attributes
                    if (!key.endsWith(":")) {
                        attributes.put(key, unquote(part.substring(eq + 1)));
                    }
                }
            }
            names.forEach(n -> result.put(n, attributes));
        }
        return result;
    }

    /** Splits at {@code separator} outside double quotes. */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        boolean quoted = false;
        for (char c : text.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == separator && !quoted) {
                parts.add(part.toString());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        parts.add(part.toString());
        return parts;
    }

    private static String unquote(String value) {
        String v = value.strip();
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    private static Manifest manifest(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest m = file.getManifest();
            assertNotNull(jar + " has no manifest", m);
            return m;
        }
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertNotNull("system property " + name + " (set by failsafe in the itests pom)", value);
        return value;
    }
}

package org.hyperprof.store.clickhouse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a host is, beside its host.id, written with each session it ships, for "what changed after an
 * upgrade": its CPU model, its hypervisor's version (Xen's, from /sys/hypervisor, when it runs under
 * one), its kernel's and Hyperprof's. Empty where not known.
 */
record HostFacts(String cpuModel, String hypervisorVersion, String kernelVersion, String hyperprofVersion) {

    /** This machine's, read once. */
    static HostFacts of(String hyperprofVersion) {
        return new HostFacts(cpuModel(Path.of("/proc/cpuinfo")), hypervisor(Path.of("/sys/hypervisor")),
                System.getProperty("os.name", "") + " " + System.getProperty("os.version", ""), hyperprofVersion);
    }

    static String cpuModel(Path cpuinfo) {
        try {
            for (String line : Files.readAllLines(cpuinfo)) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    String key = line.substring(0, colon).strip();
                    if (key.equals("model name") || key.equals("cpu")) {
                        return line.substring(colon + 1).strip();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or not readable: not known.
        }
        return "";
    }

    /** {@code xen 4.17.2}, from /sys/hypervisor/type and version/major, minor, extra. */
    static String hypervisor(Path sys) {
        try {
            String type = Files.readString(sys.resolve("type")).strip();
            StringBuilder v = new StringBuilder(type);
            for (String part : List.of("major", "minor")) {
                Path p = sys.resolve("version").resolve(part);
                if (Files.isReadable(p)) {
                    v.append(part.equals("major") ? " " : ".").append(Files.readString(p).strip());
                }
            }
            Path extra = sys.resolve("version").resolve("extra");
            if (Files.isReadable(extra)) {
                v.append(Files.readString(extra).strip());
            }
            return v.toString();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}

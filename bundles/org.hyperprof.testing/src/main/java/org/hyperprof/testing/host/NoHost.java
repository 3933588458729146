package org.hyperprof.testing.host;

import java.util.List;
import java.util.Optional;

import org.hyperprof.api.host.Host;
import org.hyperprof.api.host.HostService;

/** A host service with no simulated host, for a profiler that only publishes other sources' sessions. */
public final class NoHost implements HostService {

    @Override
    public List<String> scenarios() {
        return List.of();
    }

    @Override
    public Host load(String scenario, String cpuTypeOverride) {
        throw new UnsupportedOperationException("no simulated host in this test");
    }

    @Override
    public Optional<Host> current() {
        return Optional.empty();
    }
}

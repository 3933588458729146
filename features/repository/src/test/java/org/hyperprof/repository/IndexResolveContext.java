package org.hyperprof.repository;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import aQute.bnd.osgi.repository.ResourcesRepository;
import aQute.bnd.osgi.resource.ResourceBuilder;
import aQute.bnd.osgi.resource.ResourceUtils;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.resource.Capability;
import org.osgi.resource.Namespace;
import org.osgi.resource.Requirement;
import org.osgi.resource.Resource;
import org.osgi.resource.Wiring;
import org.osgi.service.resolver.HostedCapability;
import org.osgi.service.resolver.ResolveContext;

/**
 * What a container's resolver sees when it installs from a repository index: the running framework
 * (its system bundle's capabilities: the Java platform, the OSGi API) and the index's resources,
 * asked for the given requirements. The index is asked first, so what it holds is installed from it.
 */
final class IndexResolveContext extends ResolveContext {
    private final ResourcesRepository index;
    private final BundleRevision system;
    private final Resource wanted;

    IndexResolveContext(Collection<Resource> index, BundleRevision system, List<Requirement> requirements) {
        this.index = new ResourcesRepository(index);
        this.system = system;
        ResourceBuilder builder = new ResourceBuilder();
        builder.addRequirements(requirements);
        this.wanted = builder.build();
    }

    /** The synthetic resource carrying the requirements: it is no bundle and is never installed. */
    Resource wanted() {
        return wanted;
    }

    @Override
    public Collection<Resource> getMandatoryResources() {
        return List.of(wanted);
    }

    @Override
    public List<Capability> findProviders(Requirement requirement) {
        List<Capability> providers = new ArrayList<>(index.findProvider(requirement));
        for (Capability capability : system.getCapabilities(requirement.getNamespace())) {
            if (ResourceUtils.matches(requirement, capability)) {
                providers.add(capability);
            }
        }
        return providers;
    }

    @Override
    public int insertHostedCapability(List<Capability> capabilities, HostedCapability hostedCapability) {
        capabilities.add(hostedCapability);
        return capabilities.size() - 1;
    }

    @Override
    public boolean isEffective(Requirement requirement) {
        String effective = requirement.getDirectives().get(Namespace.REQUIREMENT_EFFECTIVE_DIRECTIVE);
        return effective == null || Namespace.EFFECTIVE_RESOLVE.equals(effective);
    }

    @Override
    public Map<Resource, Wiring> getWirings() {
        return Map.of(system, system.getWiring());
    }

    /**
     * Whether bnd's index made the resource up: it indexes a multi-release jar (slf4j, commons-io) also as
     * one resource per Java release, which the jar's own resource requires, with no content of its own.
     */
    static boolean isSynthetic(Resource resource) {
        return resource.getCapabilities("osgi.identity").stream()
                .anyMatch(c -> "bnd.synthetic".equals(c.getAttributes().get("type")));
    }
}

// Policy bundles implement CounterVirtualizationPolicy and PolicySession (@ConsumerType): they
// import this package at [2.0,3); the hypervisor implements PolicyHost (@ProviderType).
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package org.hyperprof.api.vpmu;

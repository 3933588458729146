// Model bundles implement PmuModel and PhysicalPmu (@ConsumerType): they import this package at
// [2.0,3), so a default method added in a minor version leaves every built model resolvable.
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.1.0")
package org.hyperprof.api.pmu;

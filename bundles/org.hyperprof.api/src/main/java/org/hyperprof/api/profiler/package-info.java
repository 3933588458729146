@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.2.0")
package org.hyperprof.api.profiler;

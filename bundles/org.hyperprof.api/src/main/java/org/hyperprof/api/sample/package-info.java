@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package org.hyperprof.api.sample;
